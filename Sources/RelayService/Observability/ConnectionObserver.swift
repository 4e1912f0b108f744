import RelayHTTP

/// Counts what the HTTP server does on its own: connections refused at accept and requests cut
/// with 408 because they arrived too slowly. Metrics only, no log line: these come in floods
/// during an attack, and a line each would turn the attack on the disk.
struct ConnectionObserver: Sendable {
    let metrics: Metrics

    init(metrics: Metrics) {
        self.metrics = metrics
        metrics.declareCounter(
            "relay_http_refused_connections_total",
            help: "Connections answered 503 (or, out of descriptors, dropped) at accept, by reason.",
            labels: ["reason"])
        metrics.declareCounter(
            "relay_http_request_timeouts_total", help: "Requests cut with 408 before they had arrived, by limit.",
            labels: ["limit"])
    }

    /// The server's `onEvent`.
    var record: @Sendable (ServerEvent) -> Void {
        { [metrics] event in
            switch event {
            case .refused(let reason): metrics.increment("relay_http_refused_connections_total", [reason.rawValue])
            case .timedOut(let limit): metrics.increment("relay_http_request_timeouts_total", [limit.rawValue])
            }
        }
    }
}
