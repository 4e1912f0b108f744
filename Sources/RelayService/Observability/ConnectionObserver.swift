import RelayHTTP
import RelaySync

/// Counts what the HTTP server does on its own: connections refused at accept, connections closed
/// to make room in a full table, and requests cut with 408 because they arrived too slowly. Metrics
/// for every one; for shedding also one sampled log line (`http.shed`) at most every
/// `logInterval` seconds, naming the last kind shed and how many were shed since the previous line,
/// so an operator learns the table was full without an attack turning into a line per connection.
struct ConnectionObserver: Sendable {
    let logger: Logger?
    let refused: Metrics.Counter
    let shed: Metrics.Counter
    let timedOut: Metrics.Counter
    /// The time between two `http.shed` lines.
    static let logInterval: Duration = .seconds(10)
    private let sampled = Locked((lastLine: -Double.infinity, unlogged: 0))

    init(metrics: Metrics, logger: Logger? = nil) {
        self.logger = logger
        refused = metrics.declareCounter(
            "relay_http_refused_connections_total",
            help: "Connections answered 503 (or, out of descriptors, dropped) at accept, by reason.",
            labels: ["reason"])
        shed = metrics.declareCounter(
            "relay_http_shed_connections_total",
            help:
                "Connections closed to admit a new one while the connection table was full, by kind (idle keep-alive first, then the slowest request still arriving).",
            labels: ["reason"])
        timedOut = metrics.declareCounter(
            "relay_http_request_timeouts_total", help: "Requests cut with 408 before they had arrived, by limit.",
            labels: ["limit"])
    }

    /// The server's `onEvent`.
    var record: @Sendable (ServerEvent) -> Void {
        { [self] event in
            switch event {
            case .refused(let reason): refused.increment(reason.rawValue)
            case .timedOut(let limit): timedOut.increment(limit.rawValue)
            case .shed(let reason):
                shed.increment(reason.rawValue)
                logSampled(reason)
            }
        }
    }

    private func logSampled(_ reason: ServerEvent.Shed) {
        guard let logger else { return }
        let now = LogSampler.monotonicNow()
        let count = sampled.withLock { sampled -> Int? in
            sampled.unlogged += 1
            guard now - sampled.lastLine >= Self.logInterval.seconds else { return nil }
            defer { sampled = (now, 0) }
            return sampled.unlogged
        }
        guard let count else { return }
        var line = LogEvent(.warning, "http.shed")
        // Why: the connection table was full; what: the kind closed now, and how many since the last line.
        line.outcome =
            switch reason {
            case .idleKeepAlive: "table_full.idle_keepalive"
            case .slowRequest: "table_full.slow_request"
            }
        line.count = count
        logger.log(line)
    }
}
