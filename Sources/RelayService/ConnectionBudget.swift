import RelayHTTP

/// How many client connections the relay may hold inside the process's descriptor limit.
///
/// Every connection is a descriptor. If `maxConnections` reached past the limit, `accept` would fail
/// first and the server could only drop connections unanswered (what the slow-body attack of
/// issue 12 saw); kept below it, the 503 is reachable. Some descriptors are kept back for the rest
/// of the process: the SQLite files (3 connections × database, WAL, shared memory), the upstream
/// HTTP client (CloudKit, DynamoDB, KMS: up to 256 idle connections kept plus those in flight), the
/// metrics listener (up to 64 connections), standard streams and logs, and each event loop's epoll
/// instance, eventfd, listener and spare descriptor.
package struct ConnectionBudget: Equatable {
    /// The descriptor limit planned for.
    let limit: Int
    /// Descriptors kept for everything but client connections.
    let reserve: Int
    /// The connection limit to run with.
    package let maxConnections: Int
    /// The default `maxConnections` this replaced when it did not fit; nil when it did.
    let loweredFrom: Int?

    /// Descriptors kept back: 1,024, or a quarter of a smaller limit, but never under 64 (the
    /// process's own descriptors alone are a few dozen).
    static func reserve(forLimit limit: Int) -> Int { min(1024, max(64, limit / 4)) }

    /// Fits `configuration`'s `maxConnections` into `limit` descriptors: a value left to its default
    /// is lowered to fit; a value the operator set that does not fit is a problem (nothing is
    /// quietly changed behind a setting).
    package static func plan(_ configuration: Configuration, limit: Int) throws(Configuration.Problem)
        -> ConnectionBudget
    {
        let reserve = reserve(forLimit: limit)
        let room = limit - reserve
        let wanted = configuration.server.maxConnections
        guard room >= 1 else {
            throw Configuration.Problem(
                setting: "RELAY_HTTP_MAX_CONNECTIONS",
                message:
                    "the descriptor limit of \(limit) leaves no room for connections; raise it (LimitNOFILE= in the systemd unit, ulimit -n)"
            )
        }
        if wanted <= room {
            return ConnectionBudget(limit: limit, reserve: reserve, maxConnections: wanted, loweredFrom: nil)
        }
        guard !configuration.maxConnectionsIsExplicit else {
            throw Configuration.Problem(
                setting: "RELAY_HTTP_MAX_CONNECTIONS",
                message:
                    "\(wanted) connections do not fit in the process's descriptor limit of \(limit) (\(reserve) are kept for the store, upstream calls, the metrics listener and logs), so the 503 past the limit could never be sent; set it to at most \(room), or raise the limit (LimitNOFILE= in the systemd unit, ulimit -n)"
            )
        }
        return ConnectionBudget(limit: limit, reserve: reserve, maxConnections: room, loweredFrom: wanted)
    }

    /// The start-up banner's line.
    package func summary(perAddress: Int) -> String {
        var line = "  connections: at most \(maxConnections)"
        if let loweredFrom { line += " (the default \(loweredFrom) lowered to fit)" }
        line += "; descriptor limit \(limit), \(reserve) kept for the rest"
        line += perAddress > 0 ? "; \(perAddress) per client address (IPv6: per /64)" : "; no per-address cap"
        return line
    }
}
