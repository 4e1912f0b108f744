/// The connections of one origin (`scheme://host:port`) on the direct loop, and the exchanges
/// waiting for one.
///
/// Used by the loop thread only.
final class DirectPool {
    /// Kept-alive HTTP/1.1 connections, the most recently used last.
    var idle: [DirectConnection] = []
    /// Connections open or opening, both paths.
    var open = 0
    /// Exchanges waiting for an HTTP/1.1 connection (only with `maxConnectionsPerHost`).
    var waiting: [DirectExchange] = []
    /// HTTP/2 connections that still take new streams, oldest first (filled first, so a burst
    /// packs onto as few connections as it can).
    var multiplexed: [DirectConnection] = []
    /// Connections on the multiplexed path: opening for it, or HTTP/2 and not going away. At most
    /// `maxMultiplexedConnectionsPerHost`.
    var multiplexedOpen = 0
    /// Exchanges waiting for a free HTTP/2 stream (every multiplexed connection is full, and no
    /// more may open).
    var streamWaiting: [DirectExchange] = []
}

/// Routing exchanges: `https` origins through `OriginRouter` (probe first, then the multiplexed or
/// the parallel path), plain `http` straight to the HTTP/1.1 path.
extension DirectLoop {
    func pool(_ origin: String) -> DirectPool {
        if let pool = pools[origin] { return pool }
        let pool = DirectPool()
        pools[origin] = pool
        return pool
    }

    /// Starts `exchange` on the path its origin takes: the first exchange with an unknown `https`
    /// origin probes (opens a connection, whose ALPN answer decides), the others wait for that
    /// answer in the router.
    func dispatch(_ exchange: DirectExchange) {
        guard exchange.target.scheme == .https else {
            dispatchSerial(exchange)
            return
        }
        switch router.route(exchange.target.origin, exchange) {
        case .probe:
            exchange.probe = true
            open(for: exchange, pool(exchange.target.origin), multiplexed: true)
        case .held: break
        case .multiplexed: dispatchMultiplexed(exchange)
        case .parallel: dispatchSerial(exchange)
        }
    }

    /// A free stream on a connection of the origin, a new connection while the
    /// origin has fewer than `maxMultiplexedConnectionsPerHost`, or the queue for a stream.
    func dispatchMultiplexed(_ exchange: DirectExchange) {
        let pool = pool(exchange.target.origin)
        for connection in pool.multiplexed where freeStreams(connection) > 0 {
            submit(exchange, on: connection)
            return
        }
        if pool.multiplexedOpen < max(1, configuration.maxMultiplexedConnectionsPerHost) {
            open(for: exchange, pool, multiplexed: true)
        } else {
            pool.streamWaiting.append(exchange)
        }
    }

    /// Starts `exchange` on an idle HTTP/1.1 connection of its origin, or queues it when the origin
    /// is at `maxConnectionsPerHost`, or opens a connection for it.
    ///
    /// A POST (any method that is not idempotent) first checks its idle connection: a connection
    /// the server closed while it was idle is dropped before the request is sent, because
    /// afterwards the client cannot tell whether the server read it.
    func dispatchSerial(_ exchange: DirectExchange) {
        let pool = pool(exchange.target.origin)
        while let connection = pool.idle.popLast() {
            idleCount -= 1
            connection.state = .busy
            if !exchange.isIdempotent && !isStillOpen(connection) {
                closeConnection(connection)
                continue
            }
            start(exchange, on: connection)
            return
        }
        let limit = configuration.maxConnectionsPerHost
        if limit > 0 && pool.open >= limit {
            pool.waiting.append(exchange)
            return
        }
        open(for: exchange, pool, multiplexed: false)
    }

    /// Streams `connection` may still open: the server's limit and the configuration's.
    func freeStreams(_ connection: DirectConnection) -> Int {
        guard connection.state == .busy, let h2 = connection.h2 else { return 0 }
        return min(h2.availableStreams, configuration.maxStreamsPerConnection - connection.streams.count)
    }

    /// Gives the exchanges waiting for a stream the free streams of `connection`.
    func drainStreamWaiting(onto connection: DirectConnection) {
        let pool = pool(connection.origin)
        while !pool.streamWaiting.isEmpty, connection.state == .busy, freeStreams(connection) > 0 {
            submit(pool.streamWaiting.removeFirst(), on: connection)
        }
    }

    /// A connection opened on the multiplexed path answered HTTP/1.1 (or an HTTP/2 connection went
    /// away): the exchanges waiting for a stream go where the router now sends them.
    func redispatchStreamWaiting(_ origin: String) {
        let pool = pool(origin)
        guard !pool.streamWaiting.isEmpty else { return }
        let waiting = pool.streamWaiting
        pool.streamWaiting.removeAll()
        for exchange in waiting where active[ObjectIdentifier(exchange)] != nil { dispatch(exchange) }
    }
}
