import RelayOAuth

/// Turns the authorization server's audit events into logs and metrics, and keeps the in-memory
/// caches honest when a grant ends.
struct OAuthEventObserver: Sendable {
    let logger: Logger
    let metrics: Metrics
    let cache: BearerCache
    let states: GrantStates

    static func declare(_ metrics: Metrics) {
        metrics.declareCounter("relay_oauth_events_total", help: "Authorization server events.", labels: ["event"])
        metrics.declareCounter(
            "relay_oauth_refresh_reuse_total", help: "Refresh tokens reused outside the grace window (grant revoked).")
        metrics.declareCounter(
            "relay_oauth_code_replay_total", help: "Authorization codes presented twice (grant revoked).")
    }

    func record(_ event: OAuthEvent) {
        var line: LogEvent
        switch event {
        case .clientRegistered(let clientID):
            line = LogEvent(.info, "oauth.client_registered")
            line.client = ClientTag(clientID: clientID)
        case .registrationRateLimited:
            line = LogEvent(.warning, "oauth.registration_rate_limited")
        case .grantCreated(_, let clientID):
            line = LogEvent(.info, "oauth.grant_created")
            line.client = ClientTag(clientID: clientID)
        case .codeRedeemed:
            line = LogEvent(.info, "oauth.code_redeemed")
        case .codeReplay(let grantID):
            metrics.increment("relay_oauth_code_replay_total")
            forget(grantID)
            line = LogEvent(.warning, "oauth.code_replay")
        case .refreshRotated:
            line = LogEvent(.info, "oauth.refresh_rotated")
        case .refreshRetried:
            line = LogEvent(.info, "oauth.refresh_retried")
        case .refreshReuse(let grantID):
            metrics.increment("relay_oauth_refresh_reuse_total")
            forget(grantID)
            line = LogEvent(.warning, "oauth.refresh_reuse")
        case .grantRevoked(let grantID, _):
            forget(grantID)
            line = LogEvent(.info, "oauth.grant_revoked")
        case .disconnected(let grants):
            line = LogEvent(.info, "oauth.disconnected")
            line.count = grants
        case .consentDenied(let clientID):
            line = LogEvent(.info, "oauth.consent_denied")
            line.client = ClientTag(clientID: clientID)
        case .metadataDocumentRefused:
            line = LogEvent(.warning, "oauth.metadata_document_refused")
        case .failure:
            line = LogEvent(.error, "oauth.failure")
        }
        metrics.increment("relay_oauth_events_total", ["\(line.event)"])
        logger.log(line)
    }

    private func forget(_ grantID: String) {
        cache.evict(grantID: grantID)
        states.forget(grantID)
    }
}
