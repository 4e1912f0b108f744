import Foundation
import RelayCrypto
import RelayHTTP
import RelayJSON

/// Sends one client's recorded requests (`ClientFixture`) to a running relay, in the client's
/// order, with the client's own checks on the answers: the unauthenticated request and its 401,
/// discovery (the first URL the client tries must answer), the `resource` check, registration or
/// the metadata document, `/authorize` with the person's browser walk through the emulator's
/// Apple sign-in, the redirect back to the client's exact URI, `/token`, one `initialize` and one
/// `tools/call` with the token, then a refresh. Throws a failure naming the step that broke.
struct ClientReplay {
    let fixture: ClientFixture
    let issuer: String
    let http: HTTPClient
    /// Runs `mustdo-relayctl clients add` with these arguments against the relay's store, as its
    /// operator would; returns the client ID and secret it printed.
    var preRegister: (@Sendable ([String]) async throws -> (id: String, secret: String?))? = nil

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What the replay saw, for the test's own checks.
    struct Outcome {
        var protectedResource: JSONValue = .null
        var clientID = ""
        var redirect = ""
        var grantedScope = ""
        var negotiatedVersion = ""
    }

    /// Sends a request as the client would: from its page's origin when it runs in a browser, and
    /// then the answer must let the page read it (CORS).
    private func send(_ request: ClientRequest, _ step: String) async throws -> ClientResponse {
        var request = request
        if let origin = fixture.origin { request.headers.add("Origin", origin) }
        let response = try await http.send(request)
        if fixture.origin != nil, response.headers["access-control-allow-origin"] == nil {
            throw fail(step, "\(request.url) answered without Access-Control-Allow-Origin")
        }
        return response
    }

    private func fail(_ step: String, _ detail: String) -> Failure {
        Failure(description: "\(fixture.file) (\(fixture.client)): \(step): \(detail)")
    }

    func run(appleID: String) async throws -> Outcome {
        var outcome = Outcome()
        let mcpURL = issuer + fixture.typedPath

        // 1. The first request, without a token: 401 and a challenge naming the metadata.
        let first = try await mcp(mcpURL, initialize, token: nil)
        guard first.status == 401, let challenge = first.headers["www-authenticate"],
            let metadataURL = Self.parameter("resource_metadata", in: challenge)
        else { throw fail("first request", "\(first.status) \(first.headers["www-authenticate"] ?? "no challenge")") }

        // 2. Discovery in the client's order; the first URL of each kind must answer.
        var protectedResource: JSONValue?
        var serverMetadata: JSONValue?
        for entry in fixture.discovery {
            let url = entry == "challenge" ? metadataURL : issuer + entry
            let isResource = entry == "challenge" || entry.contains("oauth-protected-resource")
            if isResource ? protectedResource != nil : serverMetadata != nil { continue }
            let response = try await send(
                ClientRequest(
                    url: url, headers: ["Accept": "application/json", "MCP-Protocol-Version": fixture.protocolVersion]),
                "discovery")
            guard response.status == 200, let document = try? JSONValue(parsing: response.body) else {
                throw fail("discovery", "\(url) answered \(response.status), the client would go on elsewhere")
            }
            if isResource { protectedResource = document } else { serverMetadata = document }
        }
        guard let protectedResource, let serverMetadata else {
            throw fail("discovery", "the fixture's discovery list lacks a resource or server metadata URL")
        }
        outcome.protectedResource = protectedResource
        let resource = protectedResource["resource"]?.stringValue ?? ""
        try checkResource(resource, against: mcpURL)
        guard
            protectedResource["authorization_servers"]?.arrayValue?.first?.stringValue
                == serverMetadata["issuer"]?.stringValue,
            serverMetadata["code_challenge_methods_supported"]?.arrayValue?.contains("S256") == true
        else { throw fail("server metadata", "issuer mismatch or no S256: \(serverMetadata.jsonString)") }

        // 3. Registration, or the metadata document (claude.ai's condition for using one: the
        // server says it supports them and lists `none`).
        var secret: String?
        switch fixture.registration {
        case .dynamic(let body):
            guard let endpoint = serverMetadata["registration_endpoint"]?.stringValue else {
                throw fail("registration", "no registration_endpoint")
            }
            let response = try await send(
                ClientRequest(
                    method: .post, url: endpoint, headers: ["Content-Type": "application/json"], body: body.bytes),
                "registration")
            guard response.status == 201 || response.status == 200,
                let answer = try? JSONValue(parsing: response.body), let id = answer["client_id"]?.stringValue
            else { throw fail("registration", "\(response.status) \(response.text)") }
            outcome.clientID = id
            secret = answer["client_secret"]?.stringValue
        case .metadataDocument(let url, _):
            guard serverMetadata["client_id_metadata_document_supported"]?.boolValue == true,
                serverMetadata["token_endpoint_auth_methods_supported"]?.arrayValue?.contains("none") == true
            else { throw fail("metadata document", "the server does not offer client ID metadata documents") }
            outcome.clientID = url
        case .preRegistered(let arguments):
            guard let preRegister else { throw fail("pre-registration", "no way to run mustdo-relayctl clients add") }
            let added = try await preRegister(arguments)
            outcome.clientID = added.id
            secret = added.secret
        }

        // 4. /authorize as the client builds it, then the person's browser.
        let verifier = Base64URL.encode(SecureRandom.bytes(count: 32))
        let state = Base64URL.encode(SecureRandom.bytes(count: 16))
        var query = [
            ("response_type", "code"), ("client_id", outcome.clientID),
            ("code_challenge", Base64URL.encode(SHA256.hash(verifier))), ("code_challenge_method", "S256"),
            ("redirect_uri", fixture.redirectURI), ("state", state),
        ]
        let scopes = protectedResource["scopes_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
        switch fixture.scope {
        case .metadata: query.append(("scope", scopes.joined(separator: " ")))
        case .empty: query.append(("scope", ""))
        case .none: break
        }
        if fixture.sendsResource { query.append(("resource", resource)) }
        guard let authorize = serverMetadata["authorization_endpoint"]?.stringValue,
            let tokenEndpoint = serverMetadata["token_endpoint"]?.stringValue
        else { throw fail("server metadata", "no authorization or token endpoint") }
        let browser = OAuthDriver(http: http, issuer: issuer)
        let code: String
        do {
            code = try await browser.signIn(
                authorizationURL: authorize + "?" + FormDecoding.encode(query), appleID: appleID, state: state)
        } catch {
            throw fail("authorize", "\(error)")
        }
        outcome.redirect = browser.lastRedirect
        guard browser.lastRedirect.hasPrefix(fixture.redirectURI + "?") else {
            throw fail("authorize", "sent back to \(browser.lastRedirect), not \(fixture.redirectURI)")
        }

        // 5. The code exchange, with the client's authentication.
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier),
            ("redirect_uri", fixture.redirectURI),
        ]
        if fixture.sendsResource { form.append(("resource", resource)) }
        let tokens = try await token(tokenEndpoint, form, clientID: outcome.clientID, secret: secret, step: "token")
        guard let access = tokens["access_token"]?.stringValue,
            tokens["token_type"]?.stringValue?.lowercased() == "bearer"
        else { throw fail("token", tokens.jsonString) }
        outcome.grantedScope = tokens["scope"]?.stringValue ?? ""

        // 6. The token works: initialize in the client's version, then a tool call.
        let initialized = try await mcp(mcpURL, initialize, token: access)
        guard initialized.status == 200, let result = try? JSONValue(parsing: initialized.body),
            let version = result["result"]?["protocolVersion"]?.stringValue
        else { throw fail("initialize", "\(initialized.status) \(initialized.text)") }
        outcome.negotiatedVersion = version
        let call: JSONValue = [
            "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": ["name": "get_me", "arguments": [:]],
        ]
        let called = try await mcp(mcpURL, call, token: access, version: version)
        guard called.status == 200, let reply = try? JSONValue(parsing: called.body),
            reply["result"]?["isError"]?.boolValue != true,
            // Structured content exists from 2025-06-18 on; every revision has the text block.
            reply["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue?.contains("\"today\"") == true
        else { throw fail("tools/call", "\(called.status) \(called.text)") }

        // 7. A refresh as the client sends it (no scope: the grant's scopes are kept).
        if let refresh = tokens["refresh_token"]?.stringValue {
            var refreshForm = [("grant_type", "refresh_token"), ("refresh_token", refresh)]
            if fixture.sendsResource { refreshForm.append(("resource", resource)) }
            let fresh = try await token(
                tokenEndpoint, refreshForm, clientID: outcome.clientID, secret: secret, step: "refresh")
            guard fresh["access_token"]?.stringValue != nil else { throw fail("refresh", fresh.jsonString) }
        }
        return outcome
    }

    private var initialize: JSONValue {
        [
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": [
                "protocolVersion": .string(fixture.protocolVersion), "capabilities": [:],
                "clientInfo": ["name": .string(fixture.client), "version": "replay"],
            ],
        ]
    }

    private func checkResource(_ resource: String, against url: String) throws {
        switch fixture.resourceCheck {
        case .none: return
        case .exact:
            guard resource == url else { throw fail("resource check", "\(resource) is not \(url)") }
        case .prefix:
            guard let asked = URLComponents(string: url), let named = URLComponents(string: resource),
                asked.scheme == named.scheme, asked.host == named.host, asked.port == named.port
            else { throw fail("resource check", "\(resource) is another origin than \(url)") }
            let path = asked.path.hasSuffix("/") ? asked.path : asked.path + "/"
            let prefix = named.path.hasSuffix("/") ? named.path : named.path + "/"
            guard path.hasPrefix(prefix) else { throw fail("resource check", "\(url) is not under \(resource)") }
        }
    }

    private func token(_ endpoint: String, _ form: [(String, String)], clientID: String, secret: String?, step: String)
        async throws -> JSONValue
    {
        var pairs = form
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
        switch fixture.tokenAuth {
        case "client_secret_basic":
            let credentials = FormDecoding.encode(clientID) + ":" + FormDecoding.encode(secret ?? "")
            headers.add("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString())
        case "client_secret_post":
            pairs += [("client_id", clientID), ("client_secret", secret ?? "")]
        default:
            pairs.append(("client_id", clientID))
        }
        let response = try await send(
            ClientRequest(method: .post, url: endpoint, headers: headers, body: Array(FormDecoding.encode(pairs).utf8)),
            step)
        guard response.status == 200, let json = try? JSONValue(parsing: response.body) else {
            throw fail(step, "\(response.status) \(response.text)")
        }
        return json
    }

    private func mcp(_ url: String, _ message: JSONValue, token: String?, version: String? = nil) async throws
        -> ClientResponse
    {
        var headers: HTTPHeaders = [
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        ]
        if let token { headers.add("Authorization", "Bearer " + token) }
        if let version, version != "2025-03-26" { headers.add("MCP-Protocol-Version", version) }
        if let origin = fixture.origin {
            // The browser asks first, without the token.
            let preflight = try await http.send(
                ClientRequest(
                    method: .options, url: url,
                    headers: [
                        "Origin": origin, "Access-Control-Request-Method": "POST",
                        "Access-Control-Request-Headers": "authorization,content-type,mcp-protocol-version",
                    ]))
            guard preflight.status == 204 || preflight.status == 200,
                preflight.headers["access-control-allow-headers"]?.lowercased().contains("authorization") == true
            else { throw fail("preflight", "\(preflight.status) \(preflight.headers)") }
        }
        return try await send(ClientRequest(method: .post, url: url, headers: headers, body: message.bytes), "mcp")
    }

    /// A quoted parameter of a challenge.
    static func parameter(_ name: String, in challenge: String) -> String? {
        guard let start = challenge.range(of: name + "=\"") else { return nil }
        let rest = challenge[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
