import RelayHTTP
import Testing

@testable import RelayOAuth

/// The `/authorize` decision order: local errors for client and redirect URI, redirect errors after.
struct AuthorizePolicyTests {
    let configuration = OAuthConfiguration(issuer: "https://relay.example")
    let challenge = PKCE.challenge(for: String(repeating: "v", count: 43))
    let client = RegisteredClient(
        id: "client-1", source: .registration, name: "Test", redirectURIs: ["https://claude.ai/api/mcp/auth_callback"],
        authMethod: .none, grantTypes: ["authorization_code", "refresh_token"], scope: nil, secretHash: nil,
        secretPepperVersion: nil, issuedAt: 0)

    func query(_ overrides: [(String, String?)] = [], extra: [(String, String)] = []) -> FormParameters {
        var pairs: [(String, String?)] = [
            ("response_type", "code"), ("client_id", "client-1"),
            ("redirect_uri", "https://claude.ai/api/mcp/auth_callback"), ("state", "xyz"),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        for (name, value) in overrides {
            if let index = pairs.firstIndex(where: { $0.0 == name }) {
                pairs[index].1 = value
            } else {
                pairs.append((name, value))
            }
        }
        let present = pairs.compactMap { pair in pair.1.map { (name: pair.0, value: $0) } }
        return FormParameters(present + extra.map { (name: $0.0, value: $0.1) })
    }

    func decide(_ query: FormParameters, client: RegisteredClient? = nil) -> AuthorizeDecision {
        AuthorizePolicy.decide(query, client: client ?? self.client, configuration: configuration)
    }

    func redirectCode(_ decision: AuthorizeDecision) -> OAuthError.Code? {
        if case .redirectError(let error, let uri, let state) = decision {
            #expect(uri == "https://claude.ai/api/mcp/auth_callback")
            #expect(state == "xyz")
            return error.code
        }
        return nil
    }

    @Test func validRequestGoesToConsentWithDefaults() throws {
        guard case .consent(let request) = decide(query()) else {
            Issue.record("expected consent")
            return
        }
        #expect(request.resource == "https://relay.example/mcp")
        #expect(request.scope.tokens == ["todos:read", "todos:write"])
        #expect(request.state == "xyz")
        #expect(request.redirectURIWasExplicit)
        #expect(request.codeChallenge == challenge)
    }

    @Test func clientIDMissingOrRepeatedIsLocal() {
        #expect(throws: OAuthError.self) { try AuthorizePolicy.clientID(query([("client_id", nil)])).get() }
        #expect(throws: OAuthError.self) {
            try AuthorizePolicy.clientID(query(extra: [("client_id", "other")])).get()
        }
    }

    @Test func unknownClientIsLocalNeverRedirect() {
        let decision = AuthorizePolicy.decide(query(), client: nil, configuration: configuration)
        guard case .showError(let error) = decision else {
            Issue.record("expected a local error")
            return
        }
        #expect(error.code == .invalidClient)
    }

    @Test(arguments: [
        "https://evil.example/cb", "https://claude.ai/api/mcp/auth_callback/",
        "https://claude.com/api/mcp/auth_callback",
        "javascript:alert(1)",
    ])
    func unregisteredRedirectIsLocal(uri: String) {
        guard case .showError = decide(query([("redirect_uri", uri)])) else {
            Issue.record("redirect \(uri) was not refused locally")
            return
        }
    }

    @Test func badClientAndBadRedirectTogetherStayLocal() {
        let decision = AuthorizePolicy.decide(
            query([("redirect_uri", "https://evil.example/cb")]), client: nil, configuration: configuration)
        guard case .showError = decision else {
            Issue.record("expected a local error")
            return
        }
    }

    @Test func repeatedRedirectURIIsLocal() {
        guard case .showError = decide(query(extra: [("redirect_uri", "https://claude.ai/api/mcp/auth_callback")]))
        else {
            Issue.record("expected a local error")
            return
        }
    }

    @Test func missingRedirectWithOneRegisteredUsesIt() {
        guard case .consent(let request) = decide(query([("redirect_uri", nil)])) else {
            Issue.record("expected consent")
            return
        }
        #expect(request.redirectURI == "https://claude.ai/api/mcp/auth_callback")
        #expect(!request.redirectURIWasExplicit)
        var two = client
        two.redirectURIs.append("https://claude.com/api/mcp/auth_callback")
        guard case .showError = decide(query([("redirect_uri", nil)]), client: two) else {
            Issue.record("two registered URIs and none requested must be a local error")
            return
        }
    }

    @Test func responseTypeErrorsRedirect() {
        #expect(redirectCode(decide(query([("response_type", nil)]))) == .invalidRequest)
        #expect(redirectCode(decide(query([("response_type", "token")]))) == .unsupportedResponseType)
        #expect(redirectCode(decide(query([("response_type", "code id_token")]))) == .unsupportedResponseType)
    }

    @Test func pkceIsRequiredAndS256Only() {
        #expect(redirectCode(decide(query([("code_challenge", nil)]))) == .invalidRequest)
        #expect(redirectCode(decide(query([("code_challenge_method", nil)]))) == .invalidRequest)
        #expect(redirectCode(decide(query([("code_challenge_method", "plain")]))) == .invalidRequest)
        #expect(redirectCode(decide(query([("code_challenge_method", "s256")]))) == .invalidRequest)
        #expect(redirectCode(decide(query([("code_challenge_method", "S512")]))) == .invalidRequest)
        #expect(redirectCode(decide(query([("code_challenge", "short")]))) == .invalidRequest)
    }

    @Test func resourceDefaultsAndRefusals() {
        for accepted in [
            "https://relay.example/mcp", "https://relay.example/mcp/", "HTTPS://RELAY.EXAMPLE/mcp",
            "https://relay.example:443/mcp",
        ] {
            guard case .consent(let request) = decide(query([("resource", accepted)])) else {
                Issue.record("\(accepted) should be accepted")
                continue
            }
            #expect(request.resource == "https://relay.example/mcp")
        }
        for refused in [
            "https://relay.example/mcp#x", "/mcp", "javascript:alert(1)", "https://other.example/mcp",
            "https://relay.example:8443/mcp", "http://relay.example/mcp", "https://relay.example/mcp-other",
            "https://relay.example/mcp/tools", "https://relay.example", "https://relay.example/mcp?x=1",
            "https://[::1]/mcp",
        ] {
            #expect(redirectCode(decide(query([("resource", refused)]))) == .invalidTarget, "\(refused)")
        }
        #expect(redirectCode(decide(query(extra: [("resource", "https://relay.example/mcp")]))) == nil)
        #expect(
            redirectCode(
                decide(query([("resource", "https://relay.example/mcp")], extra: [("resource", "https://x/mcp")])))
                == .invalidTarget)
    }

    @Test func scopeEmptyMeansDefaultUnknownIsRefused() {
        guard case .consent(let empty) = decide(query([("scope", "")])) else {
            Issue.record("empty scope is the default")
            return
        }
        #expect(empty.scope.tokens == ["todos:read", "todos:write"])
        guard case .consent(let narrow) = decide(query([("scope", "todos:read offline_access")])) else {
            Issue.record("a known scope plus offline_access is fine")
            return
        }
        #expect(narrow.scope.tokens == ["todos:read"])
        // Issue 41: scopes this server does not offer are dropped (RFC 6749 §3.3), not refused.
        guard case .consent(let dropped) = decide(query([("scope", "admin")])),
            case .consent(let openID) = decide(query([("scope", "openid profile email todos:read mcp")]))
        else {
            Issue.record("unknown scopes are dropped")
            return
        }
        #expect(dropped.scope.tokens == ["todos:read", "todos:write"])
        #expect(openID.scope.tokens == ["todos:read"])
        #expect(redirectCode(decide(query([("scope", "todos:read \"bad")]))) == .invalidScope)
        var limited = client
        limited.scope = ScopeSet(tokens: ["todos:read"])
        #expect(redirectCode(decide(query([("scope", "todos:write")]), client: limited)) == .invalidScope)
    }

    @Test func repeatedParametersAndLongStateAreRefused() {
        #expect(redirectCode(decide(query(extra: [("code_challenge", challenge)]))) == .invalidRequest)
        if case .redirectError(let error, _, _) = decide(query([("state", String(repeating: "s", count: 3000))])) {
            #expect(error.code == .invalidRequest)
        } else {
            Issue.record("a 3000-character state must be refused")
        }
    }

    @Test func errorRedirectCarriesErrorStateAndIssExactlyOnce() {
        let url = AuthorizationResponse.error(
            OAuthError(.invalidTarget, "nope"), redirectURI: "https://claude.ai/api/mcp/auth_callback", state: "a b&c",
            issuer: "https://relay.example")
        #expect(
            url
                == "https://claude.ai/api/mcp/auth_callback?error=invalid_target&error_description=nope&state=a%20b%26c&iss=https%3A%2F%2Frelay.example"
        )
        let withQuery = AuthorizationResponse.url(
            redirectURI: "http://localhost:1/cb?keep=1", parameters: [("code", "C")], state: nil, issuer: "https://r")
        #expect(withQuery == "http://localhost:1/cb?keep=1&code=C&iss=https%3A%2F%2Fr")
    }
}
