import Foundation
import RelayCrypto
import RelayHTTP
import RelayJSON

/// An AI client and its user's browser, as plain HTTP requests against any relay instance:
/// dynamic client registration, PKCE, the consent page, the emulator's Apple sign-in page, the
/// callback, the token endpoint and `tools/call`. Each step names the instance it goes to, so a
/// scenario can start a flow on one instance and finish it on another.
struct RelayClient: Sendable {
    let http: HTTPClient
    /// The issuer every instance shares (`http://127.0.0.1`: any port passes the Host check).
    static let resource = "http://127.0.0.1/mcp"
    let redirectURI = "http://127.0.0.1:9/callback"
    let clientID: String

    /// Registers a public client at `base`.
    static func register(http: HTTPClient, at base: String) async throws -> RelayClient {
        let body: JSONValue = [
            "client_name": "acceptance test client", "redirect_uris": ["http://127.0.0.1:9/callback"],
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        ]
        let response = try await http.send(
            ClientRequest(
                method: .post, url: base + "/register", headers: ["Content-Type": "application/json"], body: body.bytes)
        )
        guard response.status == 201, let id = try JSONValue(parsing: response.body)["client_id"]?.stringValue else {
            throw AcceptanceFailure("registration failed: \(response.status) \(response.text)")
        }
        return RelayClient(http: http, clientID: id)
    }

    /// One authorization in progress: the browser's binding cookie and the client's PKCE verifier.
    struct Authorization: Sendable {
        var verifier: String
        var state: String
        var cookie: String
        var requestID: String
        var csrf: String
        /// The nonce the consent page's tab keeps in `sessionStorage` (issue 37's `TabBinding`).
        var tab: String
    }

    /// `GET /authorize` at `base`: the consent page, its form fields and the binding cookie.
    func authorize(at base: String) async throws -> Authorization {
        let verifier = Base64URL.encode(SecureRandom.bytes(count: 32))
        let state = Base64URL.encode(SecureRandom.bytes(count: 8))
        let query = FormDecoding.encode([
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI),
            ("code_challenge", Base64URL.encode(SHA256.hash(verifier))), ("code_challenge_method", "S256"),
            ("state", state), ("resource", Self.resource),
        ])
        let page = try await http.send(ClientRequest(url: base + "/authorize?" + query))
        guard page.status == 200,
            let cookie = page.headers.values("set-cookie").first(where: { $0.hasPrefix("mdr_") }),
            let requestID = Self.hidden("request", in: page.text), let csrf = Self.hidden("csrf", in: page.text),
            let tab = Self.quoted("data-tab", in: page.text)
        else { throw AcceptanceFailure("no consent page: \(page.status) \(page.text.prefix(300))") }
        return Authorization(
            verifier: verifier, state: state, cookie: String(cookie.prefix { $0 != ";" }), requestID: requestID,
            csrf: csrf, tab: tab)
    }

    /// Presses "Continue with Apple" at `base`; returns the Apple (emulator) sign-in URL.
    func consent(_ authorization: Authorization, at base: String) async throws -> String {
        let response = try await postForm(
            base + "/authorize/consent",
            [("request", authorization.requestID), ("csrf", authorization.csrf), ("action", "continue")],
            cookie: authorization.cookie)
        guard response.status == 303, let location = response.headers["location"] else {
            throw AcceptanceFailure("consent refused: \(response.status) \(response.text.prefix(300))")
        }
        return location
    }

    /// Signs in on the emulator's page as `appleID`; returns the callback's query string
    /// (`ckWebAuthToken=…&ckSession=…`), which the browser then takes to any instance.
    func signIn(_ signInURL: String, appleID: String) async throws -> String {
        let page = try await http.send(ClientRequest(url: signInURL))
        guard page.status == 200, let link = Self.hidden("oauth_token", in: page.text) else {
            throw AcceptanceFailure("no sign-in page: \(page.status)")
        }
        let origin = String(signInURL.prefix(while: { $0 != "/" })) + "//" + Self.authority(signInURL)
        let response = try await postForm(
            origin + "/IDMSWebAuth/signin", [("oauth_token", link), ("appleID", appleID)])
        guard response.status == 302 || response.status == 303, let location = response.headers["location"],
            let query = location.split(separator: "?", maxSplits: 1).last, location.contains("?")
        else { throw AcceptanceFailure("sign-in refused: \(response.status) \(response.text.prefix(200))") }
        return String(query)
    }

    /// Apple's redirect arriving at `base` with the browser's cookie, then the callback page's POST with
    /// the consenting tab's nonce (issue 37). Returns the POST's raw response (or the GET's, when it
    /// answered anything but the callback page).
    func callback(_ query: String, cookie: String, tab: String, at base: String) async throws -> ClientResponse {
        let page = try await http.send(
            ClientRequest(url: base + "/oauth/apple/callback?" + query, headers: ["Cookie": cookie]))
        guard page.status == 200, page.text.contains("<form id=finish ") else { return page }
        return try await postForm(
            base + "/oauth/apple/callback", [("q", query), ("tab", tab)], cookie: cookie, site: "same-origin")
    }

    /// A browser's form POST: `fields` form-encoded, with the cookie (`name=value`) and the
    /// `Sec-Fetch-Site` header when given.
    func postForm(
        _ url: String, _ fields: [(String, String)], cookie: String? = nil, site: String? = nil
    ) async throws -> ClientResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        if let cookie { headers.set("Cookie", cookie) }
        if let site { headers.set("Sec-Fetch-Site", site) }
        return try await http.send(
            ClientRequest(method: .post, url: url, headers: headers, body: Array(FormDecoding.encode(fields).utf8)))
    }

    /// The code in a successful callback's redirect to the client, or nil.
    func code(from callback: ClientResponse, _ authorization: Authorization) -> String? {
        guard callback.status == 303, let location = callback.headers["location"],
            location.hasPrefix(redirectURI + "?"),
            let pairs = FormDecoding.pairs(location.dropFirst(redirectURI.count + 1))
        else { return nil }
        guard pairs.first(where: { $0.name == "state" })?.value == authorization.state else { return nil }
        return pairs.first { $0.name == "code" }?.value
    }

    /// The whole browser walk on one instance: consent, sign-in, callback; returns the code.
    func connect(appleID: String, at base: String) async throws -> (code: String, verifier: String) {
        let authorization = try await authorize(at: base)
        let signInURL = try await consent(authorization, at: base)
        let query = try await signIn(signInURL, appleID: appleID)
        let response = try await callback(query, cookie: authorization.cookie, tab: authorization.tab, at: base)
        guard let code = code(from: response, authorization) else {
            throw AcceptanceFailure("callback failed: \(response.status) \(response.headers["location"] ?? "")")
        }
        return (code, authorization.verifier)
    }

    /// A token endpoint answer.
    struct Tokens: Sendable, Equatable {
        var access: String
        var refresh: String
    }

    /// `POST /token`: the status and, on 200, the pair; otherwise the OAuth error code.
    func token(_ form: [(String, String)], at base: String) async throws -> Result<Tokens, TokenError> {
        let response = try await http.send(
            ClientRequest(
                method: .post, url: base + "/token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(FormDecoding.encode(form + [("client_id", clientID)]).utf8)))
        let json = try? JSONValue(parsing: response.body)
        if response.status == 200, let access = json?["access_token"]?.stringValue,
            let refresh = json?["refresh_token"]?.stringValue
        {
            return .success(Tokens(access: access, refresh: refresh))
        }
        return .failure(TokenError(status: response.status, code: json?["error"]?.stringValue ?? response.text))
    }

    /// The token endpoint's refusal.
    struct TokenError: Error, Equatable {
        var status: Int
        var code: String
    }

    func exchange(code: String, verifier: String, at base: String) async throws -> Result<Tokens, TokenError> {
        try await token(
            [
                ("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier),
                ("redirect_uri", redirectURI), ("resource", Self.resource),
            ], at: base)
    }

    func refresh(_ refreshToken: String, at base: String) async throws -> Result<Tokens, TokenError> {
        try await token([("grant_type", "refresh_token"), ("refresh_token", refreshToken)], at: base)
    }

    /// Registers, connects and redeems on `base`: a ready grant.
    static func connected(http: HTTPClient, appleID: String, at base: String) async throws -> (RelayClient, Tokens) {
        let client = try await register(http: http, at: base)
        let (code, verifier) = try await client.connect(appleID: appleID, at: base)
        return (client, try await client.exchange(code: code, verifier: verifier, at: base).get())
    }

    /// The first quoted attribute `name` in a page.
    static func quoted(_ name: String, in page: String) -> String? {
        guard let start = page.range(of: name + "=\"") else { return nil }
        return String(page[start.upperBound...].prefix { $0 != "\"" })
    }

    static func hidden(_ name: String, in page: String) -> String? {
        for marker in ["name=\(name) value=\"", "name=\"\(name)\" value=\""] {
            guard let start = page.range(of: marker) else { continue }
            return String(page[start.upperBound...].prefix { $0 != "\"" })
                .replacingOccurrences(of: "&amp;", with: "&")
        }
        return nil
    }

    static func authority(_ url: String) -> String {
        let rest = url.components(separatedBy: "://").dropFirst().first ?? ""
        return String(rest.prefix { $0 != "/" && $0 != "?" })
    }
}
