/// The HTTP/2 codec: what ALPN decides, streams submitted and ended, the retry rules.
///
/// Retries follow RFC 9113 §8.7: a stream the server refused (REFUSED_STREAM) or that a GOAWAY
/// left unprocessed (above its last stream id) did no work, so it goes again on another (or a new)
/// connection even for a POST. Anything else follows RFC 9110 §9.2.2 as on HTTP/1.1: only an
/// idempotent request whose response never started, on a connection that had carried one before,
/// is sent again, once.
extension DirectLoop {
    /// Times one exchange may be refused unprocessed before it fails (a server that refuses
    /// everything must not keep the loop busy until the deadline).
    static let maxRefusals = 16

    /// The handshake is done: the connection speaks HTTP/2 if ALPN said `h2`, else HTTP/1.1. The
    /// answer teaches the router, and the exchanges it held back go where it now sends them.
    func handshakeFinished(_ connection: DirectConnection) {
        guard let tls = connection.tls else { return }
        connection.connectDeadline = .max
        connection.probe = false
        let speaksH2 = tls.negotiatedProtocol == "h2"
        let pool = pool(connection.origin)
        let exchange = connection.exchange
        var released: [DirectExchange] = []
        if speaksH2 {
            let session: H2Session
            do throws(ClientError) {
                session = try H2Session(
                    configuration: H2Session.Configuration(maxResponseBytes: configuration.maxResponseBytes))
            } catch {
                handshakeFailed(connection, error)
                return
            }
            connection.codec = .http2(session)
            connection.state = .busy
            connection.idleSince = Self.monotonicMilliseconds()
            if !connection.multiplexed {
                connection.multiplexed = true
                pool.multiplexedOpen += 1
            }
            pool.multiplexed.append(connection)
            released = router.answered(connection.origin, multiplexes: true).released
            detach(connection)
            if let exchange { submit(exchange, on: connection) } else { flushTLS(connection) }
            drainStreamWaiting(onto: connection)
            for held in released where active[ObjectIdentifier(held)] != nil { dispatchMultiplexed(held) }
        } else {
            leaveMultiplexedPath(connection)
            released = router.answered(connection.origin, multiplexes: false).released
            if let exchange {
                start(exchange, on: connection)
            } else {
                release(connection)
            }
            for held in released where active[ObjectIdentifier(held)] != nil { dispatchSerial(held) }
            redispatchStreamWaiting(connection.origin)
        }
    }

    /// Opens a stream for `exchange` on an HTTP/2 connection with a free stream.
    func submit(_ exchange: DirectExchange, on connection: DirectConnection) {
        guard let h2 = connection.h2 else { return }
        let id: Int32
        do throws(ClientError) {
            id = try h2.submit(Self.h2Request(exchange))
        } catch {
            finish(exchange, .failure(error))
            return
        }
        exchange.stream = id
        exchange.connection = connection
        exchange.sawResponse = false
        connection.streams[id] = exchange
        queueFlush(connection)
    }

    /// The connection's frames go out at the end of this round (`turn`), with those of every other
    /// stream the round submits to it.
    func queueFlush(_ connection: DirectConnection) {
        guard !connection.flushQueued else { return }
        connection.flushQueued = true
        flushQueue.append(connection)
    }

    /// Sends what the round's submits queued (a connection closed meanwhile has nothing to send).
    func flushQueuedConnections() {
        guard !flushQueue.isEmpty else { return }
        var index = 0
        // A flush may fail a connection and start its exchanges elsewhere, queueing more.
        while index < flushQueue.count {
            let connection = flushQueue[index]
            index += 1
            connection.flushQueued = false
            flushTLS(connection)
        }
        flushQueue.removeAll(keepingCapacity: true)
    }

    /// The request as HTTP/2 sends it: the fields `H1Request` would send (its `User-Agent`,
    /// `Accept` and `Accept-Encoding: identity` defaults, the caller's framing fields dropped,
    /// CR, LF and NUL dropped from values).
    static func h2Request(_ exchange: DirectExchange) -> H2Request {
        let request = exchange.request
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 3)
        var sawAgent = false
        var sawAccept = false
        for (name, value) in request.headers {
            let lower = name.lowercased()
            if lower == "accept-encoding" || lower == "expect" { continue }
            if lower == "user-agent" { sawAgent = true }
            if lower == "accept" { sawAccept = true }
            let clean = value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
            headers.add(
                name,
                clean
                    ? String(decoding: value.utf8.filter { $0 != 0x0D && $0 != 0x0A && $0 != 0 }, as: UTF8.self) : value
            )
        }
        if !sawAgent { headers.add("user-agent", exchange.userAgent) }
        if !sawAccept { headers.add("accept", "*/*") }
        headers.add("accept-encoding", "identity")
        return H2Request(
            method: request.method.rawValue, scheme: "https", authority: exchange.target.authority,
            path: exchange.target.requestTarget, headers: headers,
            body: request.method == .get || request.method == .head ? [] : request.body,
            maxResponseBytes: exchange.maxBytes)
    }

    /// Plaintext arrived on an HTTP/2 connection (`plainScratch`); `ended`: the TLS stream ended.
    func receivedHTTP2(on connection: DirectConnection, ended: Bool) {
        guard let h2 = connection.h2 else { return }
        if !plainScratch.isEmpty {
            do throws(ClientError) {
                try h2.receive(plainScratch)
            } catch {
                flushTLS(connection)  // its GOAWAY
                http2Broke(connection, error)
                return
            }
        }
        handleEvents(on: connection)
        guard connection.state == .busy else { return }
        flushTLS(connection)
        if ended {
            http2Broke(connection, .transport("the connection closed"))
        } else if !h2.isAlive {
            http2Broke(connection, .transport("HTTP/2: the session ended"))
        }
    }

    private func handleEvents(on connection: DirectConnection) {
        guard let h2 = connection.h2 else { return }
        var events: [H2Event] = []
        h2.takeEvents(into: &events)
        for event in events {
            switch event {
            case .head(let stream, _, _):
                connection.streams[stream]?.sawResponse = true
            case .complete(let stream, var response):
                guard let exchange = endStream(stream, on: connection) else { continue }
                connection.reused = true
                response.connectionsOpened = exchange.connectionsOpened
                finish(exchange, .success(response))
            case .reset(let stream, let code, let retryable):
                guard let exchange = endStream(stream, on: connection) else { continue }
                if retryable && exchange.refusals < Self.maxRefusals {
                    exchange.refusals += 1
                    dispatchMultiplexed(exchange)
                } else {
                    finish(exchange, .failure(.transport("HTTP/2 stream reset by the server (error \(code))")))
                }
            case .failed(let stream, let error):
                guard let exchange = endStream(stream, on: connection) else { continue }
                finish(exchange, .failure(error))
            case .goAway:
                // No new stream here; another connection may open in its place.
                leaveMultiplexedPath(connection)
            }
        }
        streamEnded(on: connection)
    }

    private func endStream(_ stream: Int32, on connection: DirectConnection) -> DirectExchange? {
        guard let exchange = connection.streams.removeValue(forKey: stream) else { return nil }
        exchange.connection = nil
        return exchange
    }

    /// A stream ended (or was cancelled): its slot goes to an exchange waiting for one; a
    /// connection left with no stream starts its idle age.
    func streamEnded(on connection: DirectConnection) {
        guard connection.state == .busy, connection.h2 != nil else { return }
        if connection.multiplexed { drainStreamWaiting(onto: connection) }
        if connection.streams.isEmpty {
            connection.idleSince = Self.monotonicMilliseconds()
            noteDeadline(connection.idleSince + Self.maxIdleMilliseconds)
        }
        let pool = pool(connection.origin)
        if !pool.streamWaiting.isEmpty, pool.multiplexedOpen < max(1, configuration.maxMultiplexedConnectionsPerHost) {
            dispatchMultiplexed(pool.streamWaiting.removeFirst())
        }
    }

    /// The HTTP/2 connection is done (a connection error, the end of the stream, or a GOAWAY with
    /// nothing left): it closes, and each exchange still on it is retried where RFC 9110 §9.2.2
    /// allows, or fails with `error`.
    func http2Broke(_ connection: DirectConnection, _ error: ClientError) {
        let exchanges = connection.streams.values.sorted { $0.stream < $1.stream }
        connection.streams.removeAll()
        for exchange in exchanges { exchange.connection = nil }
        closeConnection(connection)
        for exchange in exchanges {
            if connection.reused && exchange.isIdempotent && !exchange.sawResponse && !exchange.retried {
                exchange.retried = true
                dispatchMultiplexed(exchange)
            } else {
                finish(exchange, .failure(error))
            }
        }
    }
}
