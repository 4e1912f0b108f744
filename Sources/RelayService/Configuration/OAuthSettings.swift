/// The authorization server's settings as configured (`RELAY_OAUTH_*`); `buildApplication` turns
/// them into RelayOAuth's `OAuthConfiguration`.
public struct OAuthSettings: Sendable, Equatable {
    /// `RELAY_OAUTH_REDIRECT_ALLOWLIST`: comma-separated redirect URI patterns that replace the
    /// defaults (the claude.ai, claude.com, ChatGPT and Cursor callbacks, and loopback).
    public var redirectAllowlist: [String]?
    /// `RELAY_OAUTH_ACCESS_TOKEN_TTL` seconds (default 3600).
    public var accessTokenTTL = 3600
    /// `RELAY_OAUTH_REFRESH_TOKEN_TTL` seconds (default 30 days, sliding).
    public var refreshTokenTTL = 30 * 86400
    /// `RELAY_OAUTH_GRANT_LIFETIME` seconds (default 90 days): no token outlives its grant.
    public var grantLifetime = 90 * 86400
    /// `RELAY_OAUTH_CODE_TTL` seconds (default 300).
    public var codeTTL = 300
    /// `RELAY_OAUTH_PENDING_TTL` seconds (default 600): consent page and sign-in hop.
    public var pendingTTL = 600
    /// `RELAY_OAUTH_CONSENT_WINDOW` seconds (default 180): consent pressed → Apple callback.
    public var consentWindow = 180
    /// `RELAY_OAUTH_REFRESH_GRACE` seconds (default 120): idempotent refresh retry window.
    public var refreshGrace = 120
    /// `RELAY_OAUTH_UNUSED_CLIENT_TTL` seconds (default 30 days).
    public var unusedClientTTL = 30 * 86400
    /// `RELAY_OAUTH_REGISTRATIONS_PER_HOUR`: new clients stored per client address per hour
    /// (default 20); registrations identical to a stored client reuse it and do not count.
    public var registrationsPerHour = 20
    /// `RELAY_OAUTH_MAX_UNUSED_CLIENTS`: registered clients nobody has used yet, at most (default 100,000).
    public var maximumUnusedClients = 100_000
    /// `RELAY_OAUTH_TOKEN_FAILURES_PER_MINUTE`: failed `/token` and `/revoke` requests per client
    /// address per minute (default 120, 0 turns it off).
    public var tokenFailuresPerMinute = 120
    /// `RELAY_OAUTH_METADATA_STALE_IF_ERROR` seconds (default 86400, 0 turns it off): how long a
    /// cached client metadata document is still used past its freshness while its host fails.
    public var metadataStaleIfError = 86400
    /// `RELAY_OAUTH_METADATA_DOCUMENTS`: accept client ID metadata documents (default on).
    public var metadataDocuments = true
    /// `RELAY_OAUTH_VALIDATION_CACHE_TTL` seconds (default 5, 0 disables): how long a validated
    /// access token is remembered in memory, so `/mcp` requests without upstream work skip the store.
    public var validationCacheTTL = 5
    /// `RELAY_OAUTH_ALLOW_LOOPBACK_METADATA_DOCUMENTS`: test only.
    public var allowLoopbackMetadataDocuments = false

    public init() {}
}
