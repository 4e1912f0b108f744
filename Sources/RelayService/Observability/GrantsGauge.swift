import RelayOAuth
import RelayStore
import RelaySync

/// `relay_oauth_active_grants`: the number of active grants, counted by a background task every
/// `RELAY_METRICS_GRANTS_INTERVAL` seconds with a store scan, never on a request path. The gauge
/// appears after the first count; a failed count keeps the last value and logs a warning.
final class GrantsGauge: Sendable {
    private let admin: OAuthAdmin
    private let interval: Duration
    private let logger: Logger
    private let metrics: Metrics
    private let count = Locked<Int?>(nil)
    private let task = Locked<Task<Void, Never>?>(nil)

    init(admin: OAuthAdmin, interval: Duration, logger: Logger, metrics: Metrics) {
        self.admin = admin
        self.interval = interval
        self.logger = logger
        self.metrics = metrics
    }

    /// Starts counting now and then every interval (idempotent).
    func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task.detached(priority: .background) { [weak self] in
                while !Task.isCancelled {
                    guard let self else { return }
                    await self.countOnce()
                    do { try await Task.sleep(for: self.interval) } catch { return }
                }
            }
        }
    }

    /// Stops the background task.
    func stop() {
        task.withLock { $0?.cancel() }
    }

    /// One count; public to the module for tests.
    func countOnce() async {
        do {
            let active = try await admin.activeGrantCount()
            let first = count.withLock { current in
                defer { current = active }
                return current == nil
            }
            if first {
                metrics.declareGauge(
                    "relay_oauth_active_grants",
                    help: "Active grants (connections), counted every RELAY_METRICS_GRANTS_INTERVAL seconds."
                ) { [count] in Double(count.withLock { $0 } ?? 0) }
            }
        } catch {
            var event = LogEvent(.warning, "metrics.grant_count_failed")
            event.outcome = StaticOrRoute(errorType: error)
            logger.log(event)
        }
    }
}
