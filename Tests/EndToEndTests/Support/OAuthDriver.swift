import Foundation
import RelayCrypto
import RelayHTTP
import RelayJSON
import Synchronization

/// Plays both sides of the connect flow over real sockets: the AI client (DCR, PKCE, token,
/// refresh) and the person's browser (consent form, the emulator's Apple sign-in page, the
/// callback), keeping cookies per origin like a browser. Every secret it sees is recorded in
/// `secretsSeen`, so tests can check none of them reached the store, the logs or the metrics.
final class OAuthDriver: @unchecked Sendable {
    // @unchecked Sendable: used from one test task at a time.
    struct Tokens {
        var access: String
        var refresh: String
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let http: HTTPClient
    let issuer: String
    /// A loopback callback on a port of its own, as Claude Code and the SDKs register one per
    /// session: each driver is a client of its own (registrations of identical metadata share one
    /// client). Nothing listens there; the driver reads the code from the redirect.
    let redirectURI = "http://127.0.0.1:\(OAuthDriver.nextPort())/callback"
    private static let drivers = Atomic<Int>(0)

    private static func nextPort() -> Int { 20000 + drivers.add(1, ordering: .relaxed).newValue % 40000 }
    private(set) var clientID = ""
    private(set) var secretsSeen: [String] = []
    /// The text of the last consent page shown (what the person was told the client may do).
    private(set) var lastConsentPage = ""
    private var cookies: [String: [String: String]] = [:]

    init(http: HTTPClient, issuer: String) {
        self.http = http
        self.issuer = issuer
    }

    /// DCR, then the whole browser walk as `appleID` (asking for `scope`, nil: the default, every
    /// scope; ticking "Keep me signed in" on the sign-in page when `keepSignedIn`), then the code
    /// exchange.
    func connect(appleID: String, scope: String? = nil, keepSignedIn: Bool = false) async throws -> Tokens {
        let registration = try await json(
            .post, issuer + "/register",
            body: [
                "redirect_uris": [.string(redirectURI)], "token_endpoint_auth_method": "none", "client_name": "driver",
            ])
        clientID = registration["client_id"]?.stringValue ?? ""
        let verifier = Base64URL.encode(SecureRandom.bytes(count: 32))
        let challenge = Base64URL.encode(SHA256.hash(verifier))
        let state = Base64URL.encode(SecureRandom.bytes(count: 12))
        var parameters = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("state", state),
            ("code_challenge", challenge), ("code_challenge_method", "S256"), ("resource", issuer + "/mcp"),
        ]
        if let scope { parameters.append(("scope", scope)) }
        let query = FormDecoding.encode(parameters)
        let code = try await signIn(
            authorizationURL: issuer + "/authorize?" + query, appleID: appleID, keepSignedIn: keepSignedIn,
            state: state)
        secretsSeen.append(code)
        let tokens = try await json(
            .post, issuer + "/token",
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("client_id", clientID), ("code_verifier", verifier), ("resource", issuer + "/mcp"),
            ])
        return try record(tokens)
    }

    /// Refresh-token rotation (asking for `scope`, nil: the grant's).
    func refresh(_ tokens: Tokens, scope: String? = nil) async throws -> Tokens {
        var form = [
            ("grant_type", "refresh_token"), ("refresh_token", tokens.refresh), ("client_id", clientID),
            ("resource", issuer + "/mcp"),
        ]
        if let scope { form.append(("scope", scope)) }
        return try record(try await json(.post, issuer + "/token", form: form))
    }

    /// A refresh that should be refused: the status and the OAuth error code (RFC 6749 §5.2), so a
    /// test tells a refusal from any other failure (a network error is not a refusal).
    func refusedRefresh(_ tokens: Tokens) async throws -> (status: Int, error: String?) {
        let form = [
            ("grant_type", "refresh_token"), ("refresh_token", tokens.refresh), ("client_id", clientID),
            ("resource", issuer + "/mcp"),
        ]
        let response = try await http.send(
            ClientRequest(
                method: .post, url: issuer + "/token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(FormDecoding.encode(form).utf8)))
        return (response.status, (try? JSONValue(parsing: response.body))?["error"]?.stringValue)
    }

    /// The scope a token response names, from a refresh (for checks on narrowing).
    func refreshScope(_ tokens: Tokens, scope: String) async throws -> (status: Int, body: JSONValue?) {
        let form = [
            ("grant_type", "refresh_token"), ("refresh_token", tokens.refresh), ("client_id", clientID),
            ("resource", issuer + "/mcp"), ("scope", scope),
        ]
        let response = try await http.send(
            ClientRequest(
                method: .post, url: issuer + "/token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(FormDecoding.encode(form).utf8)))
        return (response.status, try? JSONValue(parsing: response.body))
    }

    /// RFC 7009 revocation of `token` (access or refresh) by this client; returns the status.
    func revoke(_ token: String) async throws -> Int {
        let response = try await http.send(
            ClientRequest(
                method: .post, url: issuer + "/revoke", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(FormDecoding.encode([("token", token), ("client_id", clientID)]).utf8)))
        return response.status
    }

    /// The disconnect page as a person uses it: open it, confirm, sign in with Apple as `appleID`;
    /// returns the final page's text ("Removed N connections.").
    func disconnect(appleID: String) async throws -> String {
        let page = try await browse(.get, issuer + "/disconnect")
        guard page.status == 200 else { throw Failure(description: "disconnect page: \(page.status)") }
        let form = try Self.form(page.text)
        tab = Self.attribute("data-tab", in: page.text)
        let confirmed = try await browse(
            .post, resolve(form.action, against: issuer + "/disconnect"), form: form.fields)
        guard let signInPage = confirmed.headers["location"] else {
            throw Failure(description: "disconnect confirm: \(confirmed.status) \(confirmed.text)")
        }
        let callback = try await appleSignIn(signInPage, appleID: appleID)
        let done = try await followCallback(callback)
        guard done.status == 200 else { throw Failure(description: "disconnect callback: \(done.status)") }
        return done.text
    }

    private func record(_ answer: JSONValue) throws -> Tokens {
        guard let access = answer["access_token"]?.stringValue, let refresh = answer["refresh_token"]?.stringValue
        else {
            throw Failure(description: "no tokens: \(answer.jsonString)")
        }
        secretsSeen += [access, refresh]
        return Tokens(access: access, refresh: refresh)
    }

    /// Where the relay sent the browser back to, the last time `signIn` completed.
    private(set) var lastRedirect = ""

    /// The browser half, from `/authorize` to the redirect back to the client; returns the code.
    func signIn(
        authorizationURL: String, appleID: String, keepSignedIn: Bool = false, state: String
    ) async throws -> String {
        let consent = try await browse(.get, authorizationURL)
        guard consent.status == 200 else { throw Failure(description: "authorize: \(consent.status) \(consent.text)") }
        lastConsentPage = consent.text
        let consentForm = try Self.form(consent.text)
        tab = Self.attribute("data-tab", in: consent.text)
        let afterConsent = try await browse(
            .post, resolve(consentForm.action, against: authorizationURL),
            form: consentForm.fields + [("action", "continue")])
        guard let signInPage = afterConsent.headers["location"] else {
            throw Failure(description: "consent: \(afterConsent.status) \(afterConsent.text)")
        }
        let callback = try await appleSignIn(signInPage, appleID: appleID, keepSignedIn: keepSignedIn)
        let back = try await followCallback(callback)
        guard let location = back.headers["location"], let items = URLComponents(string: location)?.queryItems,
            let code = items.first(where: { $0.name == "code" })?.value,
            items.first(where: { $0.name == "state" })?.value == state,
            items.first(where: { $0.name == "iss" })?.value == issuer
        else { throw Failure(description: "callback: \(back.status) \(back.headers["location"] ?? back.text)") }
        lastRedirect = location
        return code
    }

    /// This tab's `sessionStorage` nonce (`TabBinding`): kept from the page whose form was sent.
    private var tab: String?

    /// Apple's callback as a browser tab runs it (issue 37): the callback page, then the POST its
    /// script makes with the raw query and this tab's nonce (read once).
    private func followCallback(_ url: String) async throws -> ClientResponse {
        let page = try await browse(.get, url)
        guard page.status == 200, page.text.contains("<form id=finish ") else { return page }
        let path = String(url.prefix { $0 != "?" })
        let query = url.contains("?") ? String(url.drop { $0 != "?" }.dropFirst()) : ""
        defer { tab = nil }
        return try await browse(.post, path, form: [("q", query), ("tab", tab ?? "")], sameOrigin: true)
    }

    /// The emulator's Apple sign-in page as `appleID`; returns the callback URL it redirects to.
    private func appleSignIn(_ signInPage: String, appleID: String, keepSignedIn: Bool = false) async throws
        -> String
    {
        let page = try await browse(.get, signInPage)
        let signInForm = try Self.form(page.text)
        let afterSignIn = try await browse(
            .post, resolve(signInForm.action, against: signInPage),
            form: signInForm.fields + [("appleID", appleID), ("password", "x")]
                + (keepSignedIn ? [("keepSignedIn", "1")] : []))
        guard let callback = afterSignIn.headers["location"] else {
            throw Failure(description: "sign-in: \(afterSignIn.status) \(afterSignIn.text)")
        }
        if let token = URLComponents(string: callback)?.queryItems?.first(where: { $0.name == "ckWebAuthToken" })?.value
        {
            secretsSeen.append(token)
        }
        return callback
    }

    // MARK: HTTP

    func json(_ method: HTTPMethod, _ url: String, body: JSONValue? = nil, form: [(String, String)]? = nil) async throws
        -> JSONValue
    {
        var headers: HTTPHeaders = [:]
        var bytes: [UInt8] = []
        if let body {
            headers.add("Content-Type", "application/json")
            bytes = body.bytes
        } else if let form {
            headers.add("Content-Type", "application/x-www-form-urlencoded")
            bytes = Array(FormDecoding.encode(form).utf8)
        }
        let response = try await http.send(ClientRequest(method: method, url: url, headers: headers, body: bytes))
        guard (200..<300).contains(response.status) else {
            throw Failure(description: "\(url): \(response.status) \(response.text)")
        }
        return try JSONValue(parsing: response.body)
    }

    private func browse(
        _ method: HTTPMethod, _ url: String, form: [(String, String)]? = nil, sameOrigin: Bool = false
    ) async throws -> ClientResponse {
        var headers: HTTPHeaders = ["Accept-Language": "en"]
        if sameOrigin { headers.add("Sec-Fetch-Site", "same-origin") }
        let origin = Self.origin(url)
        if let jar = cookies[origin], !jar.isEmpty {
            headers.add("Cookie", jar.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        var body: [UInt8] = []
        if let form {
            headers.add("Content-Type", "application/x-www-form-urlencoded")
            body = Array(FormDecoding.encode(form).utf8)
        }
        let response = try await http.send(ClientRequest(method: method, url: url, headers: headers, body: body))
        for header in response.headers.values("set-cookie") {
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            cookies[origin, default: [:]][String(pair[0])] = String(pair[1])
        }
        return response
    }

    private static func origin(_ url: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        return "\(components.scheme ?? "")://\(components.host ?? ""):\(components.port ?? 0)"
    }

    private func resolve(_ action: String, against url: String) -> String {
        URL(string: action, relativeTo: URL(string: url))?.absoluteString ?? action
    }

    /// The first form's action and its named inputs (hidden and text), HTML entities decoded.
    static func form(_ html: String) throws -> (action: String, fields: [(String, String)]) {
        guard let formRange = html.range(of: #"<form[^>]*>"#, options: .regularExpression) else {
            throw Failure(description: "no form in: \(html.prefix(300))")
        }
        let tag = String(html[formRange])
        let action = attribute("action", in: tag) ?? ""
        var fields: [(String, String)] = []
        var rest = html[formRange.upperBound...]
        while let inputRange = rest.range(of: #"<input[^>]*>"#, options: .regularExpression) {
            let input = String(rest[inputRange])
            let type = attribute("type", in: input) ?? "text"
            if let name = attribute("name", in: input), type == "hidden" {
                fields.append((name, attribute("value", in: input) ?? ""))
            }
            rest = rest[inputRange.upperBound...]
        }
        return (action, fields)
    }

    static func attribute(_ name: String, in tag: String) -> String? {
        let pattern = name + #"\s*=\s*(?:"([^"]*)"|([^\s>]+))"#
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let match = regex.firstMatch(in: tag, range: NSRange(tag.startIndex..., in: tag))
        else { return nil }
        for group in 1...2 {
            if let range = Range(match.range(at: group), in: tag) {
                return String(tag[range]).replacingOccurrences(of: "&amp;", with: "&")
                    .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            }
        }
        return nil
    }
}
