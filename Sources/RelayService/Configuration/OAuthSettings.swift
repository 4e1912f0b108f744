import RelayOAuth

/// The authorization server's settings as configured (`RELAY_OAUTH_*`); `buildApplication` turns
/// them into RelayOAuth's `OAuthConfiguration`.
///
/// Each default that the authorization server has is written once, in `OAuthConfiguration` (the
/// values docs/oauth.md names), and read from there; the settings reader takes its defaults from
/// `OAuthSettings()`, and `config/relay.env.example` shows them (SettingsExampleTests checks that
/// the example's values are these defaults).
package struct OAuthSettings: Sendable, Equatable {
    /// RelayOAuth's defaults, the one place they are written.
    private static let server = OAuthConfiguration(issuer: "")

    /// `RELAY_OAUTH_REDIRECT_ALLOWLIST`: comma-separated redirect URI patterns added to the known
    /// platforms' callbacks and loopback (`KnownPlatform.defaults`); never replacing them.
    package var redirectAllowlist: [String]?
    /// `RELAY_OAUTH_REGISTRATION`: `open` (default; safe redirects off the list are accepted as
    /// self-registered) or `allowlist` (only listed redirects). Nil when not set.
    package var registrationMode: RegistrationMode?
    /// The authorization server's lifetimes, each set by one variable (in whole seconds):
    /// `accessToken` `RELAY_OAUTH_ACCESS_TOKEN_TTL` (default 3600), `refreshToken`
    /// `RELAY_OAUTH_REFRESH_TOKEN_TTL` (default 30 days, sliding), `grant`
    /// `RELAY_OAUTH_GRANT_LIFETIME` (default 90 days: no token outlives its grant), `code`
    /// `RELAY_OAUTH_CODE_TTL` (default 300), `pendingRequest` `RELAY_OAUTH_PENDING_TTL` (default 600:
    /// consent page and sign-in hop), `consentWindow` `RELAY_OAUTH_CONSENT_WINDOW` (default 180:
    /// consent pressed → Apple callback), `refreshGrace` `RELAY_OAUTH_REFRESH_GRACE` (default 120:
    /// idempotent refresh retry window), `unusedClient` `RELAY_OAUTH_UNUSED_CLIENT_TTL` (default
    /// 30 days), `metadataDocumentStaleIfError` `RELAY_OAUTH_METADATA_STALE_IF_ERROR` (default
    /// 86400, 0 turns it off: how long a cached client metadata document is still used past its
    /// freshness while its host fails). The others stay at RelayOAuth's defaults.
    package var lifetimes = server.lifetimes
    /// `RELAY_OAUTH_REGISTRATIONS_PER_HOUR`: new clients stored per client address per hour
    /// (default 60); registrations identical to a stored client reuse it and do not count, nor do
    /// those on a known platform's callback or an operator's allowlist entry (issue 41).
    package var registrationsPerHour = server.registrationRateLimit.requests
    /// `RELAY_OAUTH_MAX_UNUSED_CLIENTS`: registered clients nobody has used yet, at most (default 100,000).
    package var maximumUnusedClients = server.maximumUnusedClients
    /// `RELAY_OAUTH_TOKEN_FAILURES_PER_MINUTE`: failed `/token` and `/revoke` requests per client
    /// address per minute (default 120, 0 turns it off).
    package var tokenFailuresPerMinute = server.tokenFailureLimit.requests
    /// `RELAY_OAUTH_METADATA_DOCUMENTS`: accept client ID metadata documents (default on). The
    /// relay's own choice (RelayOAuth accepts them whenever it is given a fetcher), so written here.
    package var metadataDocuments = true
    /// `RELAY_OAUTH_VALIDATION_CACHE_TTL` seconds (default 5, 0 disables): how long a validated
    /// access token is remembered in memory, so `/mcp` requests without upstream work skip the store.
    /// The relay's cache, not the authorization server's, so written here.
    package var validationCacheTTL: Duration = .seconds(5)
    /// `RELAY_OAUTH_ALLOW_LOOPBACK_METADATA_DOCUMENTS`: test only.
    package var allowLoopbackMetadataDocuments = server.allowsLoopbackMetadataDocuments

    package init() {}
}
