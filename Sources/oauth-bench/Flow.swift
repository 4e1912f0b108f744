import Foundation
import RelayCrypto
import RelayHTTP
import RelayJSON

/// The connect flow driven through the router in process (no sockets): what the AI client and the
/// browser send, in order.
struct Flow {
    let router: Router
    let callbackPath: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], body: String = "") async -> Response {
        await router.respond(to: Request(method: method, target: target, headers: headers, body: Array(body.utf8)))
    }

    func register() async throws -> String {
        let response = await send(
            .post, "/register", headers: ["content-type": "application/json"],
            body: #"{"redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"token_endpoint_auth_method":"none"}"#)
        guard let id = (try? JSONValue(parsing: response.body))?["client_id"]?.stringValue else {
            throw Failure(description: "registration failed: \(response.status)")
        }
        return id
    }

    /// Authorize, consent, callback, code exchange; returns the token response body.
    func connect(clientID: String, user: Int) async throws -> JSONValue {
        let verifier = Base64URL.encode(SecureRandom.bytes(count: 32))
        let challenge = Base64URL.encode(SHA256.hash(verifier))
        let query = FormDecoding.encode([
            ("response_type", "code"), ("client_id", clientID),
            ("redirect_uri", "https://claude.ai/api/mcp/auth_callback"),
            ("state", "s"), ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ])
        let page = await send(.get, "/authorize?" + query)
        let html = String(decoding: page.body, as: UTF8.self)
        guard let cookie = page.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init),
            let request = hidden("request", html), let csrf = hidden("csrf", html),
            let tab = html.firstRange(of: "data-tab=\"").map({ String(html[$0.upperBound...].prefix { $0 != "\"" }) })
        else { throw Failure(description: "no consent page: \(page.status)") }
        let form: HTTPHeaders = ["content-type": "application/x-www-form-urlencoded", "cookie": cookie]
        let consent = await send(
            .post, "/authorize/consent", headers: form,
            body: FormDecoding.encode([("request", request), ("csrf", csrf), ("action", "continue")]))
        guard consent.status.code == 303 else { throw Failure(description: "consent: \(consent.status)") }
        let token = "bench+token/" + String(format: "%032d", user)
        // The callback page's POST, as its script makes it from the consenting tab (issue 37).
        let callback = await send(
            .post, callbackPath,
            headers: [
                "content-type": "application/x-www-form-urlencoded", "cookie": cookie, "sec-fetch-site": "same-origin",
            ],
            body: FormDecoding.encode([("q", "ckWebAuthToken=" + FormDecoding.encode(token)), ("tab", tab)]))
        guard let location = callback.headers["Location"], let mark = location.firstIndex(of: "?"),
            let code = FormDecoding.pairs(location[location.index(after: mark)...])?.first(where: { $0.name == "code" }
            )?
            .value
        else { throw Failure(description: "callback: \(callback.status)") }
        let exchange = await send(
            .post, "/token", headers: ["content-type": "application/x-www-form-urlencoded"],
            body: FormDecoding.encode([
                ("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier),
                ("client_id", clientID), ("redirect_uri", "https://claude.ai/api/mcp/auth_callback"),
            ]))
        guard exchange.status.code == 200 else { throw Failure(description: "exchange: \(exchange.status)") }
        return try JSONValue(parsing: exchange.body)
    }

    func refresh(_ token: String, clientID: String) async throws -> JSONValue {
        let response = await send(
            .post, "/token", headers: ["content-type": "application/x-www-form-urlencoded"],
            body: FormDecoding.encode([
                ("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", clientID),
            ]))
        guard response.status.code == 200 else { throw Failure(description: "refresh: \(response.status)") }
        return try JSONValue(parsing: response.body)
    }

    private func hidden(_ name: String, _ html: String) -> String? {
        guard let range = html.range(of: "name=\(name) value=\"") else { return nil }
        let rest = html[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
