/// Every setting of the authorization server. Defaults are the ones docs/oauth.md names.
package struct OAuthConfiguration: Sendable {
    /// Lifetimes and time windows (whole seconds: the store's expiry times and the wire's
    /// `expires_in` count seconds).
    package struct Lifetimes: Sendable, Equatable {
        /// Access tokens.
        package var accessToken: Duration = .seconds(3600)
        /// Refresh tokens, from their issue (sliding: each rotation issues a fresh one).
        package var refreshToken: Duration = .seconds(30 * 86400)
        /// A grant from its creation: no token outlives it, whatever the refreshes.
        package var grant: Duration = .seconds(90 * 86400)
        /// Authorization codes.
        package var code: Duration = .seconds(300)
        /// A pending authorization request (the consent page and the sign-in hop).
        package var pendingRequest: Duration = .seconds(600)
        /// How long after pressing "Continue with Apple" the callback is still accepted.
        package var consentWindow: Duration = .seconds(180)
        /// How long the connections page stays open after Apple confirmed who the person is
        /// (never extended: the person confirms again after it).
        package var connectionsSession: Duration = .seconds(600)
        /// How long a retry of the just-rotated refresh token gets the same successor pair.
        package var refreshGrace: Duration = .seconds(120)
        /// A registered client that never completes a token exchange is deleted after this.
        package var unusedClient: Duration = .seconds(30 * 86400)
        /// How long a redeemed code is remembered, so that a replay can revoke its grant.
        package var redeemedCode: Duration = .seconds(86400)
        /// The longest a client metadata document is cached, whatever its cache headers say.
        package var metadataDocumentCache: Duration = .seconds(86400)
        /// How long past its freshness a cached client metadata document may still be used while
        /// its host fails (RFC 5861 `stale-if-error`; a shorter `stale-if-error` in the document
        /// wins, `must-revalidate`, `no-cache` and `no-store` turn it off). 0 turns it off.
        package var metadataDocumentStaleIfError: Duration = .seconds(86400)

        /// The defaults.
        package init() {}
    }

    /// A fixed-window request budget per client address (0 requests: no limit where that is allowed).
    package struct RateLimit: Sendable, Equatable {
        /// Requests allowed per window.
        package var requests: Int
        /// The window (whole seconds: windows start at multiples of it in epoch seconds).
        package var window: Duration

        /// A limit.
        package init(requests: Int, window: Duration) {
            self.requests = requests
            self.window = window
        }
    }

    /// The public base URL: `https://host[:port]`, no path, no trailing slash. Every URL the
    /// server publishes starts with it, byte for byte (metadata `issuer`, `iss`, PRM).
    package var issuer: String
    /// The MCP endpoint's path; the protected resource is `issuer + resourcePath`.
    package var resourcePath = "/mcp"
    /// `resource_name` in the protected-resource metadata, and the name pages use.
    package var resourceName = "MustDo Relay"
    /// The scopes, in the order clients should request them; empty scope means all of them.
    package var scopes = ["todos:read", "todos:write"]
    /// The listed redirect URIs: known platforms (verified), the operator's additions, loopback.
    package var redirectAllowlist = RedirectAllowlist()!
    /// Whether safe redirects off the list are accepted as self-registered (`open`, the default)
    /// or refused (`allowlist`).
    package var registrationMode = RegistrationMode.open
    /// The most redirect URIs per client.
    package var maximumRedirectURIs = 10
    /// Lifetimes and windows.
    package var lifetimes = Lifetimes()
    /// New clients `POST /register` may store per client address; a registration identical to a
    /// stored client reuses it and does not count. Held across instances through the store.
    /// 60 (issue 41; 20 before): Copilot Studio registers one client per connector from its own
    /// egress, and an office behind one NAT registers a native client per person.
    package var registrationRateLimit = RateLimit(requests: 60, window: .seconds(3600))
    /// The most registered clients that nobody has used yet, across every instance
    /// (`ClientCapacity`); past it new clients are refused with 503 until room frees.
    package var maximumUnusedClients = 100_000
    /// Pending requests (consent and disconnect pages) a client address may open; held across instances.
    package var pageRateLimit = RateLimit(requests: 120, window: .seconds(600))
    /// Failed `/token` and `/revoke` requests per client address (0 requests: no limit); held
    /// across instances. Successful requests never count, so a platform refreshing for many
    /// people from a few addresses is not slowed.
    package var tokenFailureLimit = RateLimit(requests: 120, window: .seconds(60))
    /// Largest registration body, in bytes.
    package var maximumRegistrationBytes = 16384
    /// The fixed path Apple's sign-in returns to (registered with the CloudKit API token).
    package var callbackPath = "/oauth/apple/callback"
    /// Origins the consent, disconnect and connections forms may end up at (CSP `form-action`): the POST
    /// answers with a redirect to Apple's sign-in page, which browsers check against this list.
    package var signInOrigins = ["https://idmsa.apple.com", "https://*.apple.com", "https://*.icloud.com"]
    /// Test only: accept `http://127.0.0.1` client metadata document URLs.
    package var allowsLoopbackMetadataDocuments = false

    /// A configuration for `issuer` with every other setting at its default.
    package init(issuer: String) {
        self.issuer = issuer
    }

    /// The protected resource (the MCP endpoint URL).
    package var resource: String { issuer + resourcePath }

    /// The metadata URL for a request to `path`. The MCP endpoint typed with a trailing slash
    /// (`…/mcp/`) is named as typed, because RFC 9728 §3.3 has the client check that the
    /// metadata's `resource` is identical to the URL it used (VS Code compares them exactly);
    /// both spellings name the same audience (`ResourceIndicator`).
    package func resourceMetadataURL(forPath path: String) -> String {
        let typed = path == resourcePath + "/" ? path : resourcePath
        return issuer + "/.well-known/oauth-protected-resource" + typed
    }
    /// Whether the issuer is plain-http loopback (the local demo): cookies then cannot be
    /// `Secure` nor `__Host-`, because browsers drop those on http.
    package var isLoopbackDemo: Bool {
        guard case .success(let uri) = ParsedURI.parse(issuer) else { return false }
        return uri.scheme == "http" && uri.isLoopback
    }
}
