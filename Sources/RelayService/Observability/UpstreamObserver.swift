import RelayCloudKit
import RelayOAuth
import RelayStore
import RelaySync

/// Logs and metrics for upstream calls and grant-level events: outcome codes, durations and the
/// user tag only.
struct UpstreamObserver: Sendable {
    let logger: Logger
    let metrics: Metrics
    let calls: Metrics.Counter
    let durations: Metrics.Histogram
    let apiTokenChecks: Metrics.Counter

    init(logger: Logger, metrics: Metrics) {
        self.logger = logger
        self.metrics = metrics
        calls = metrics.declareCounter(
            "relay_cloudkit_calls_total", help: "CloudKit calls by outcome.", labels: ["outcome"])
        durations = metrics.declareHistogram("relay_cloudkit_call_duration_seconds", help: "CloudKit call latency.")
        apiTokenChecks = metrics.declareCounter(
            "relay_cloudkit_api_token_checks_total",
            help: "Checks of the CloudKit API token after a 401 (users/caller without a web token), by result.",
            labels: ["result"])
    }

    /// The monitor that decides what a 401 means, reporting each check: a metric per result, an
    /// error line whenever CloudKit refuses the API token (one per check, and checks are at least
    /// 10 s apart while it does), an info line when it is accepted again.
    func apiTokenMonitor(cloudKit: CloudKitClient, clock: any WallClock) -> APITokenMonitor {
        let monitor = APITokenMonitor(
            clock: clock,
            report: { [logger, apiTokenChecks] result, previous in
                apiTokenChecks.increment(result.rawValue)
                switch result {
                case .refused:
                    logger.log(LogEvent(.error, "cloudkit.api_token_refused"))
                case .accepted where previous == .refused:
                    logger.log(LogEvent(.info, "cloudkit.api_token_accepted"))
                case .unknown where previous != .unknown:
                    // At start above all: a mistyped RELAY_CLOUDKIT_BASE_URL would otherwise be silent
                    // until the first person's call. Once per change, not per check.
                    var event = LogEvent(.warning, "cloudkit.unreachable")
                    event.reason = LogReason(
                        errorDescription:
                            "users/caller got no verdict from CloudKit: check RELAY_CLOUDKIT_BASE_URL and the network")
                    logger.log(event)
                case .accepted, .unknown:
                    break  // counted
                }
            },
            check: { await cloudKit.checkAPIToken() })
        metrics.declareGauge(
            "relay_cloudkit_api_token_refused",
            help: "1 while the last check found the CloudKit API token, container or environment refused."
        ) { monitor.status.result == .refused ? 1 : 0 }
        return monitor
    }

    func upstream(started: ContinuousClock.Instant, outcome: String) {
        let elapsed = ContinuousClock.now - started
        calls.increment(outcome)
        durations.observe(elapsed.seconds)
    }

    func event(_ level: LogEvent.Level, _ name: StaticString, grant: BearerGrant, reason: String? = nil) {
        var event = LogEvent(level, name)
        event.reason = reason.map { LogReason(errorDescription: $0) }
        event.user = UserTag(userID: grant.userID)
        event.client = ClientTag(clientID: grant.clientID)
        logger.log(event)
    }
}
