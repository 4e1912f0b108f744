import RelayHTTP

/// An authorization request that passed every check: what the pending request stores.
struct AuthorizationRequest: Sendable, Equatable {
    var clientID: String
    /// The redirect URI to answer to, as the request named it (its loopback port included).
    var redirectURI: String
    /// Whether the request named the redirect URI (then `/token` must name the same one).
    var redirectURIWasExplicit: Bool
    var state: String?
    /// The S256 code challenge.
    var codeChallenge: String
    /// The canonical resource the tokens will be bound to.
    var resource: String
    var scope: ScopeSet
}

/// What `/authorize` does with a request.
enum AuthorizeDecision: Equatable {
    /// The client or its redirect URI is not valid: show a local error page, never redirect
    /// (OAuth 2.1 §4.1.2.1; RFC 9700 §4.11.2).
    case showError(OAuthError)
    /// The client and redirect URI are valid but the request is not: send the error back to the
    /// client with `state` and `iss`.
    case redirectError(OAuthError, redirectURI: String, state: String?)
    /// Show the consent page for this request.
    case consent(AuthorizationRequest)
}

/// The `/authorize` checks, in the order docs/oauth.md gives: client and redirect URI first
/// (failures stay local), then response type, PKCE, state, resource and scope (failures go back
/// to the client).
enum AuthorizePolicy {
    /// The longest `state` accepted.
    static let maximumStateLength = 2048

    /// The `client_id` to look up, or the local error when it is missing or repeated.
    static func clientID(_ query: FormParameters) -> Result<String, OAuthError> {
        let values = query.values("client_id")
        guard values.count == 1, let clientID = values.first, !clientID.isEmpty else {
            return .failure(OAuthError(.invalidRequest, "The request has no valid client_id."))
        }
        return .success(clientID)
    }

    /// Decides a request for `client` (nil: no such client).
    static func decide(
        _ query: FormParameters, client: RegisteredClient?, configuration: OAuthConfiguration
    ) -> AuthorizeDecision {
        guard let client else { return .showError(OAuthError(.invalidClient, "This client is not registered.")) }
        let requestedRedirects = query.values("redirect_uri")
        guard requestedRedirects.count <= 1,
            let redirectURI = RedirectURIPolicy.match(
                requested: requestedRedirects.first, registered: client.redirectURIs)
        else {
            return .showError(OAuthError(.invalidRequest, "The redirect URI is not registered for this client."))
        }
        let states = query.values("state")
        let state = states.first
        func refuse(_ code: OAuthError.Code, _ detail: String) -> AuthorizeDecision {
            .redirectError(OAuthError(code, detail), redirectURI: redirectURI, state: state)
        }
        let repeated = query.repeatedNames.intersection([
            "response_type", "code_challenge", "code_challenge_method", "state", "scope",
        ])
        if !repeated.isEmpty { return refuse(.invalidRequest, "A parameter was sent more than once.") }
        guard let responseType = query["response_type"] else {
            return refuse(.invalidRequest, "response_type is required.")
        }
        guard responseType == "code" else { return refuse(.unsupportedResponseType, "Only response_type=code.") }
        guard let challenge = query["code_challenge"] else {
            return refuse(.invalidRequest, "code_challenge is required (PKCE).")
        }
        guard query["code_challenge_method"] == "S256" else {
            return refuse(.invalidRequest, "code_challenge_method must be S256.")
        }
        guard PKCE.isValidChallenge(challenge) else { return refuse(.invalidRequest, "code_challenge is malformed.") }
        if let state, state.utf8.count > maximumStateLength { return refuse(.invalidRequest, "state is too long.") }
        let resources = query.values("resource")
        guard resources.count <= 1 else { return refuse(.invalidTarget, "Only one resource may be requested.") }
        let resource = resources.first ?? configuration.resource
        guard ResourceIndicator.matches(resource, expected: configuration.resource),
            let canonical = ResourceIndicator.canonical(configuration.resource)
        else { return refuse(.invalidTarget, "This server protects only \(configuration.resource).") }
        guard let scope = resolveScope(query["scope"], client: client, configuration: configuration) else {
            return refuse(.invalidScope, "The requested scope is not available to this client.")
        }
        return .consent(
            AuthorizationRequest(
                clientID: client.id, redirectURI: redirectURI, redirectURIWasExplicit: !requestedRedirects.isEmpty,
                state: state, codeChallenge: challenge, resource: canonical, scope: scope))
    }

    /// Empty or absent scope is the client's default (its registered scopes, else all). Scopes
    /// this server does not offer at all (`openid`, `profile`, `email`, `mcp`, `offline_access`…)
    /// are dropped, as registration drops them: RFC 6749 §3.3 lets the server ignore part of the
    /// requested scope, and the token response's `scope` says what was granted. A scope the
    /// server offers but this client did not register is still `invalid_scope`; so is a
    /// malformed scope string.
    static func resolveScope(_ text: String?, client: RegisteredClient, configuration: OAuthConfiguration) -> ScopeSet?
    {
        let allowed = client.scope?.tokens ?? configuration.scopes
        guard let requested = ScopeSet.parse(text ?? "") else { return nil }
        let offered = requested.filter(configuration.scopes.contains)
        return ScopeSet.resolve(offered.isEmpty ? allowed : offered, supported: allowed)
    }
}

/// Authorization responses: the redirect back to the client (RFC 6749 §4.1.2, RFC 9207).
enum AuthorizationResponse {
    /// `redirectURI` with `parameters`, then `state` when there is one, then `iss`, appended to
    /// any query the redirect URI already has.
    static func url(redirectURI: String, parameters: [(String, String)], state: String?, issuer: String) -> String {
        var pairs = parameters
        if let state { pairs.append(("state", state)) }
        pairs.append(("iss", issuer))
        let separator = redirectURI.contains("?") ? "&" : "?"
        return redirectURI + separator + FormDecoding.encode(pairs)
    }

    /// The redirect for an error decided after the redirect URI was validated.
    static func error(_ error: OAuthError, redirectURI: String, state: String?, issuer: String) -> String {
        var parameters = [("error", error.code.rawValue)]
        if let detail = error.detail { parameters.append(("error_description", detail)) }
        return url(redirectURI: redirectURI, parameters: parameters, state: state, issuer: issuer)
    }
}
