import RelayOAuth
import RelayVault

/// Turns the authorization server's audit events into logs and metrics, and keeps the in-memory
/// caches honest when a grant ends or a token is revoked: the events are sent before the request
/// that caused them is answered, so every cache of this process has forgotten the grant (bearer
/// cache, newest CloudKit token, unwrapped data keys) by the time the client hears of it.
struct OAuthEventObserver: Sendable {
    let logger: Logger
    let cache: BearerCache
    let states: GrantStates
    let vault: Vault
    let events: Metrics.Counter
    let refreshReuse: Metrics.Counter
    let codeReplay: Metrics.Counter
    let limitRefusals: Metrics.Counter
    let unusedClientsEvicted: Metrics.Counter

    init(logger: Logger, metrics: Metrics, cache: BearerCache, states: GrantStates, vault: Vault) {
        self.logger = logger
        self.cache = cache
        self.states = states
        self.vault = vault
        events = metrics.declareCounter(
            "relay_oauth_events_total", help: "Authorization server events.", labels: ["event"])
        refreshReuse = metrics.declareCounter(
            "relay_oauth_refresh_reuse_total", help: "Refresh tokens reused outside the grace window (grant revoked).")
        codeReplay = metrics.declareCounter(
            "relay_oauth_code_replay_total", help: "Authorization codes presented twice (grant revoked).")
        limitRefusals = metrics.declareCounter(
            "relay_oauth_limit_refusals_total", help: "Requests refused by a limit held across instances.",
            labels: ["limit"])
        unusedClientsEvicted = metrics.declareCounter(
            "relay_oauth_unused_clients_evicted_total",
            help: "Unused clients evicted to admit a new client past the day's share, by tier.", labels: ["tier"])
    }

    func record(_ event: OAuthEvent) {
        var line: LogEvent
        switch event {
        case .clientRegistered(let clientID):
            line = LogEvent(.info, "oauth.client_registered")
            line.client = ClientTag(clientID: clientID)
        case .clientRegistrationReused(let clientID):
            line = LogEvent(.info, "oauth.client_registration_reused")
            line.client = ClientTag(clientID: clientID)
        case .limitReached(let limit):
            limitRefusals.increment(limit.rawValue)
            line = LogEvent(.warning, "oauth.limit_reached")
            line.outcome = StaticOrRoute(name: limit.rawValue)
        case .unusedClientEvicted(let tier):
            unusedClientsEvicted.increment(tier.rawValue)
            line = LogEvent(.info, "oauth.unused_client_evicted")
            line.outcome = StaticOrRoute(name: tier.rawValue)
        case .grantCreated(_, let clientID):
            line = LogEvent(.info, "oauth.grant_created")
            line.client = ClientTag(clientID: clientID)
        case .codeRedeemed:
            line = LogEvent(.info, "oauth.code_redeemed")
        case .codeReplay(let grantID):
            codeReplay.increment()
            forget(grantID)
            line = LogEvent(.warning, "oauth.code_replay")
        case .refreshRotated:
            line = LogEvent(.info, "oauth.refresh_rotated")
        case .refreshRetried:
            line = LogEvent(.info, "oauth.refresh_retried")
        case .refreshReuse(let grantID):
            refreshReuse.increment()
            forget(grantID)
            line = LogEvent(.warning, "oauth.refresh_reuse")
        case .grantRevoked(let grantID, _):
            forget(grantID)
            line = LogEvent(.info, "oauth.grant_revoked")
        case .accessTokenRevoked(let grantID, let tokenHash):
            cache.evict(tokenHash: tokenHash)
            vault.evictCachedKeys(grantID: grantID)
            line = LogEvent(.info, "oauth.access_token_revoked")
        case .disconnected(let grants):
            line = LogEvent(.info, "oauth.disconnected")
            line.count = grants
        case .consentDenied(let clientID):
            line = LogEvent(.info, "oauth.consent_denied")
            line.client = ClientTag(clientID: clientID)
        case .metadataDocumentRefused:
            line = LogEvent(.warning, "oauth.metadata_document_refused")
        case .metadataDocumentStale:
            line = LogEvent(.warning, "oauth.metadata_document_stale")
        case .failure(let reason):
            line = LogEvent(.error, "oauth.failure")
            line.reason = LogReason(errorDescription: reason)
        }
        events.increment("\(line.event)")
        logger.log(line)
    }

    private func forget(_ grantID: String) {
        cache.evict(grantID: grantID)
        states.forget(grantID)
        vault.evictCachedKeys(grantID: grantID)
    }
}
