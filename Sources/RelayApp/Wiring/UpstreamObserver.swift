import RelayCloudKit
import RelayOAuth

/// Logs and metrics for upstream calls and grant-level events: outcome codes, durations and the
/// user tag only.
struct UpstreamObserver: Sendable {
    let logger: Logger
    let metrics: Metrics

    static func declare(_ metrics: Metrics) {
        metrics.declareCounter("relay_cloudkit_calls_total", help: "CloudKit calls by outcome.", labels: ["outcome"])
        metrics.declareHistogram("relay_cloudkit_call_duration_seconds", help: "CloudKit call latency.")
    }

    func upstream(started: ContinuousClock.Instant, outcome: String) {
        let elapsed = ContinuousClock.now - started
        metrics.increment("relay_cloudkit_calls_total", [outcome])
        metrics.observe("relay_cloudkit_call_duration_seconds", [], elapsed.seconds)
    }

    func event(_ level: LogEvent.Level, _ name: StaticString, grant: BearerGrant) {
        var event = LogEvent(level, name)
        event.user = UserTag(userID: grant.userID)
        event.client = ClientTag(clientID: grant.clientID)
        logger.log(event)
    }
}
