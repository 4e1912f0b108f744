#if canImport(Glibc)
    import Glibc
#endif

/// Giving exchanges connections: the idle pool, the per-origin queue, DNS, connecting.
extension DirectLoop {
    func pool(_ origin: String) -> Pool {
        if let pool = pools[origin] { return pool }
        let pool = Pool()
        pools[origin] = pool
        return pool
    }

    /// Starts `exchange` on an idle connection of its origin, or queues it when the origin is at
    /// `maxConnectionsPerHost`, or opens a connection for it.
    ///
    /// A POST (any method that is not idempotent) first checks its idle connection with one
    /// `recv(MSG_PEEK)`: a connection the server closed while it was idle is dropped before the
    /// request is sent, because afterwards the client cannot tell whether the server read it.
    func dispatch(_ exchange: DirectExchange) {
        let pool = pool(exchange.target.origin)
        while let connection = pool.idle.popLast() {
            idleCount -= 1
            connection.state = .busy
            if !exchange.isIdempotent && !DirectSocket.isQuiet(connection.fd) {
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
        open(for: exchange, pool)
    }

    /// Opens a new connection for `exchange` (its addresses from the literal, the DNS cache, or
    /// the resolver, which calls back with `resolved`).
    func open(for exchange: DirectExchange, _ pool: Pool) {
        let target = exchange.target
        let addresses: [DirectAddress]
        if let literal = target.literal {
            addresses = [DirectAddress(literal, port: target.port)]
        } else {
            let key = "\(target.host) \(target.port)"
            guard let cached = dns.addresses(key, now: Self.monotonicMilliseconds()) else {
                let first = resolving[key] == nil
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
            for exchange in waiting where active[ObjectIdentifier(exchange)] != nil { dispatch(exchange) }
        case .failure(let error):
            for exchange in waiting { finish(exchange, .failure(error)) }
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
        connection.connectDeadline = .max
        guard let exchange = connection.exchange else {
            closeConnection(connection)
            return
        }
        exchange.connectionsOpened += 1
        start(exchange, on: connection)
    }

    /// Puts `exchange` on `connection` and sends its request.
    func start(_ exchange: DirectExchange, on connection: DirectConnection) {
        connection.state = .busy
        connection.exchange = exchange
        exchange.connection = connection
        connection.written = 0
        switch connection.codec {
        case .http1: connection.parser.reset(method: exchange.method, maxBytes: exchange.maxBytes)
        }
        write(connection)
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

    /// Closes a connection (after `detach` when it carried an exchange); a waiting exchange of its
    /// origin may open one in its place.
    func closeConnection(_ connection: DirectConnection, promoteWaiting: Bool = true) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        let pool = pool(connection.origin)
        if connection.state == .idle, let index = pool.idle.firstIndex(where: { $0 === connection }) {
            pool.idle.remove(at: index)
            idleCount -= 1
        }
        connection.close()
        pool.open -= 1
        if promoteWaiting, !pool.waiting.isEmpty {
            dispatch(pool.waiting.removeFirst())
        }
    }

    /// Separates a connection and its exchange.
    func detach(_ connection: DirectConnection) {
        connection.exchange?.connection = nil
        connection.exchange = nil
    }

    /// Fails an exchange wherever it is: on a connection (closed: a half-done exchange leaves it
    /// unusable), waiting for one, or waiting for DNS.
    func fail(_ exchange: DirectExchange, _ error: ClientError) {
        if let connection = exchange.connection {
            detach(connection)
            closeConnection(connection)
        } else {
            let pool = pool(exchange.target.origin)
            pool.waiting.removeAll { $0 === exchange }
            let key = "\(exchange.target.host) \(exchange.target.port)"
            resolving[key]?.removeAll { $0 === exchange }
        }
        finish(exchange, .failure(error))
    }
}
