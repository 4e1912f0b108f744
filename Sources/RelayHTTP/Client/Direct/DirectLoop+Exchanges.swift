#if canImport(Glibc)
    import Glibc
#endif

/// Giving exchanges connections: DNS, connecting, starting, releasing, closing, failing.
extension DirectLoop {
    /// Opens a new connection for `exchange` (its addresses from the literal, the DNS cache, or
    /// the resolver, which calls back with `resolved`). `multiplexed`: it counts against the
    /// origin's `maxMultiplexedConnectionsPerHost`.
    func open(for exchange: DirectExchange, _ pool: DirectPool, multiplexed: Bool) {
        let target = exchange.target
        let addresses: [DirectAddress]
        if let literal = target.literal {
            addresses = [DirectAddress(literal, port: target.port)]
        } else {
            let key = "\(target.host) \(target.port)"
            guard let cached = dns.addresses(key, now: Self.monotonicMilliseconds()) else {
                let first = resolving[key] == nil
                exchange.multiplexed = multiplexed
                resolving[key, default: []].append(exchange)
                if first { resolver.resolve(target.host, port: target.port, key: key) }
                return
            }
            addresses = cached
        }
        nextConnectionID += 1
        let connection = DirectConnection(id: nextConnectionID, origin: target.origin, addresses: addresses)
        connections[connection.id] = connection
        pool.open += 1
        if multiplexed {
            connection.multiplexed = true
            pool.multiplexedOpen += 1
        }
        connection.probe = exchange.probe
        connection.exchange = exchange
        exchange.connection = connection
        connection.connectDeadline = Self.monotonicMilliseconds() + exchange.connectTimeoutMilliseconds
        noteDeadline(connection.connectDeadline)
        connectNext(connection)
    }

    func resolved(_ key: String, _ answer: DirectResolver.Answer) {
        let waiting = resolving.removeValue(forKey: key) ?? []
        switch answer {
        case .success(let addresses):
            dns.store(key, addresses, now: Self.monotonicMilliseconds())
            for exchange in waiting where active[ObjectIdentifier(exchange)] != nil {
                if exchange.multiplexed {
                    open(for: exchange, pool(exchange.target.origin), multiplexed: true)
                } else {
                    dispatchSerial(exchange)
                }
            }
        case .failure(let error):
            for exchange in waiting {
                if exchange.probe { releaseProbe(exchange.target.origin) }
                finish(exchange, .failure(error))
            }
        }
    }

    /// Starts a connect to the next address; when none is left, fails the exchange.
    func connectNext(_ connection: DirectConnection) {
        while connection.nextAddress < connection.addresses.count {
            let address = connection.addresses[connection.nextAddress]
            connection.nextAddress += 1
            let fd = DirectSocket.startConnect(address)
            guard fd >= 0 else {
                if connection.connectError == 0 { connection.connectError = -fd }
                continue
            }
            connection.fd = fd
            // Registering reports a connect that already finished, so no event is missed.
            guard poller.register(fd, id: connection.id) else {
                connection.close()
                continue
            }
            return
        }
        let exchange = connection.exchange
        detach(connection)
        closeConnection(connection)
        guard let exchange else { return }
        let target = exchange.target
        let reason = DirectSocket.describe(connection.connectError == 0 ? ECONNREFUSED : connection.connectError)
        finish(exchange, .failure(.connectFailed("could not connect to \(target.host) port \(target.port): \(reason)")))
    }

    /// The socket of a connecting connection became writable or failed.
    func connectFinished(_ connection: DirectConnection) {
        let code = DirectSocket.connectError(connection.fd)
        guard code == 0 else {
            if connection.connectError == 0 { connection.connectError = code }
            connection.close()
            connection.state = .connecting
            connectNext(connection)
            return
        }
        statistics.connectionsOpened.add(1, ordering: .relaxed)
        guard let exchange = connection.exchange else {
            closeConnection(connection)
            return
        }
        exchange.connectionsOpened += 1
        if exchange.target.scheme == .https {
            startHandshake(connection, exchange)
            return
        }
        connection.connectDeadline = .max
        start(exchange, on: connection)
    }

    /// Puts `exchange` on an HTTP/1.1 `connection` and sends its request.
    func start(_ exchange: DirectExchange, on connection: DirectConnection) {
        connection.state = .busy
        connection.exchange = exchange
        exchange.connection = connection
        connection.written = 0
        connection.parser.reset(method: exchange.method, maxBytes: exchange.maxBytes)
        guard let tls = connection.tls else {
            write(connection)
            return
        }
        exchange.prepareHTTP1()
        let bytes = exchange.bytes
        do throws(ClientError) {
            try tls.write(bytes)
        } catch {
            failed(connection, error)
            return
        }
        flushTLS(connection)
    }

    /// A connection is free again: the next exchange waiting for its origin, the idle pool, or
    /// closed when the pool is full.
    func release(_ connection: DirectConnection) {
        let pool = pool(connection.origin)
        if !pool.waiting.isEmpty {
            start(pool.waiting.removeFirst(), on: connection)
        } else if idleCount < configuration.maxIdleConnections {
            connection.state = .idle
            connection.idleSince = Self.monotonicMilliseconds()
            noteDeadline(connection.idleSince + Self.maxIdleMilliseconds)
            pool.idle.append(connection)
            idleCount += 1
        } else {
            closeConnection(connection)
        }
    }

    /// Closes a connection (after its exchanges were detached): GOAWAY and close_notify first when
    /// it speaks them. A waiting exchange of its origin may open one in its place; a probe that
    /// ends unanswered releases the exchanges its router held back.
    func closeConnection(_ connection: DirectConnection, promoteWaiting: Bool = true) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        let pool = pool(connection.origin)
        if connection.state == .idle, let index = pool.idle.firstIndex(where: { $0 === connection }) {
            pool.idle.remove(at: index)
            idleCount -= 1
        }
        let unanswered = connection.probe && (connection.state == .connecting || connection.state == .handshaking)
        leaveMultiplexedPath(connection)
        sayGoodbye(connection)
        connection.close()
        pool.open -= 1
        if unanswered { releaseProbe(connection.origin) }
        guard promoteWaiting else { return }
        if !pool.waiting.isEmpty {
            dispatchSerial(pool.waiting.removeFirst())
        }
        if !pool.streamWaiting.isEmpty, pool.multiplexedOpen < max(1, configuration.maxMultiplexedConnectionsPerHost) {
            dispatchMultiplexed(pool.streamWaiting.removeFirst())
        }
    }

    /// Takes `connection` off its origin's multiplexed path (closed, going away, or HTTP/1.1), so
    /// another may open in its place.
    func leaveMultiplexedPath(_ connection: DirectConnection) {
        guard connection.multiplexed else { return }
        connection.multiplexed = false
        let pool = pool(connection.origin)
        pool.multiplexedOpen -= 1
        if let index = pool.multiplexed.firstIndex(where: { $0 === connection }) { pool.multiplexed.remove(at: index) }
    }

    /// The probe of `origin` ended with no answer: the exchanges held back take the multiplexed
    /// path (the next new exchange probes again).
    func releaseProbe(_ origin: String) {
        for exchange in router.probeFailed(origin) where active[ObjectIdentifier(exchange)] != nil {
            dispatchMultiplexed(exchange)
        }
    }

    /// Separates a connection and its HTTP/1.1 exchange.
    func detach(_ connection: DirectConnection) {
        connection.exchange?.connection = nil
        connection.exchange = nil
    }

    /// Fails an exchange wherever it is: on an HTTP/2 stream (reset; the connection lives on), on
    /// an HTTP/1.1 or opening connection (closed: a half-done exchange leaves it unusable), waiting
    /// for a connection or a stream, held by the router, or waiting for DNS.
    func fail(_ exchange: DirectExchange, _ error: ClientError) {
        if let connection = exchange.connection {
            if let h2 = connection.h2, connection.streams[exchange.stream] === exchange {
                connection.streams[exchange.stream] = nil
                exchange.connection = nil
                h2.cancel(stream: exchange.stream)
                flushTLS(connection)
                streamEnded(on: connection)
            } else {
                detach(connection)
                closeConnection(connection)
            }
        } else {
            let pool = pool(exchange.target.origin)
            pool.waiting.removeAll { $0 === exchange }
            pool.streamWaiting.removeAll { $0 === exchange }
            let key = "\(exchange.target.host) \(exchange.target.port)"
            resolving[key]?.removeAll { $0 === exchange }
            _ = router.removeWaiting { $0 === exchange }
            if exchange.probe { releaseProbe(exchange.target.origin) }
        }
        finish(exchange, .failure(error))
    }
}
