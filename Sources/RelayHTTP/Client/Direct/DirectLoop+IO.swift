#if canImport(Glibc)
    import Glibc
#endif

/// Socket events: writing requests, reading and parsing HTTP/1.1 responses, failures and the one
/// retry. (TLS connections read and write through `DirectLoop+TLS`.)
extension DirectLoop {
    func handle(_ ready: DirectPoller.Ready) {
        guard let connection = connections[ready.id] else { return }
        switch connection.state {
        case .connecting:
            if ready.writable || ready.failed { connectFinished(connection) }
        case .handshaking,
            .busy where connection.tls != nil:
            if ready.writable && !connection.outbound.isEmpty { flushTLS(connection) }
            if connection.state != .closed && (ready.readable || ready.failed) { readTLS(connection) }
        case .busy:
            if ready.writable, let exchange = connection.exchange, connection.written < exchange.bytes.count {
                write(connection)
            }
            if connection.state == .busy && (ready.readable || ready.failed) { read(connection) }
        case .idle:
            // An idle HTTP/1.1 connection has nothing to say: bytes, an EOF or an error all end it
            // (over TLS, records that carry no plaintext, such as session tickets, do not).
            if connection.tls != nil {
                if ready.readable || ready.failed { readTLS(connection) }
            } else if ready.readable || ready.failed {
                closeConnection(connection)
            }
        case .closed:
            break
        }
    }

    /// Sends what is left of the request; the rest goes when the socket is writable again.
    func write(_ connection: DirectConnection) {
        guard let exchange = connection.exchange else { return }
        switch connection.writeSome(exchange.bytes) {
        case .done, .wouldBlock: break
        case .failed(let code): failed(connection, "send failed: \(DirectSocket.describe(code))")
        }
    }

    /// Reads until the response is complete or the socket has nothing more (edge-triggered: it
    /// must not stop before either).
    func read(_ connection: DirectConnection) {
        while connection.state == .busy, connection.exchange != nil {
            switch connection.readSome() {
            case .data:
                if parseInbound(connection) { return }
            case .wouldBlock:
                return
            case .end:
                inputEnded(connection)
                return
            case .failed(let code):
                failed(connection, "receive failed: \(DirectSocket.describe(code))")
                return
            }
        }
    }

    /// Parses what `inbound` holds; true when the exchange ended (complete or failed).
    func parseInbound(_ connection: DirectConnection) -> Bool {
        guard let exchange = connection.exchange else { return true }
        let used: Int
        do throws(ClientError) {
            used = try parse(connection)
        } catch {
            detach(connection)
            closeConnection(connection)
            finish(exchange, .failure(error))
            return true
        }
        connection.consumed += used
        guard connection.parser.isComplete else { return false }
        complete(connection, atEnd: false)
        return true
    }

    /// The response's bytes ended (EOF, close_notify): a response delimited by the end is complete.
    func inputEnded(_ connection: DirectConnection) {
        do throws(ClientError) {
            try connection.parser.finish()
        } catch {
            failed(connection, "the connection closed before the response was complete")
            return
        }
        complete(connection, atEnd: true)
    }

    private func parse(_ connection: DirectConnection) throws(ClientError) -> Int {
        let (start, end) = (connection.consumed, connection.filled)
        // Moved out and back rather than copied: a copy would share the body's storage and make
        // every append copy it.
        var parser = H1ResponseParser()
        swap(&parser, &connection.parser)
        defer { swap(&parser, &connection.parser) }
        let result = connection.inbound.withUnsafeBytes { buffer in
            Result { () throws(ClientError) -> Int in
                try parser.parse(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
            }
        }
        return try result.get()
    }

    /// The response is in: the caller gets it, the connection goes back to the pool when the
    /// response allows (keep-alive, nothing after it) or is closed.
    func complete(_ connection: DirectConnection, atEnd: Bool) {
        guard let exchange = connection.exchange else { return }
        let response = connection.parser.response(connectionsOpened: exchange.connectionsOpened)
        let reusable =
            !atEnd && connection.parser.keepAlive && connection.consumed == connection.filled
            && connection.written == exchange.bytes.count
        connection.parser = H1ResponseParser()
        detach(connection)
        finish(exchange, .success(response))
        if reusable {
            connection.reused = true
            release(connection)
        } else {
            closeConnection(connection)
        }
    }

    func failed(_ connection: DirectConnection, _ message: String) {
        failed(connection, .transport(message))
    }

    /// The HTTP/1.1 connection broke under its exchange. When it was a kept-alive connection and
    /// no byte of the response arrived, the server most likely closed it while it sat idle: the
    /// exchange is sent once more on a fresh connection if that cannot do a request twice
    /// (RFC 9110 §9.2.2): an idempotent method, or no byte of the request left this client (the
    /// first `send` failed). A POST that was sent is never sent again: the server may have
    /// processed it.
    func failed(_ connection: DirectConnection, _ error: ClientError) {
        guard let exchange = connection.exchange else {
            closeConnection(connection)
            return
        }
        let retry =
            connection.reused && !connection.parser.sawBytes && !exchange.retried
            && (exchange.isIdempotent || connection.written == 0)
        detach(connection)
        closeConnection(connection, promoteWaiting: !retry)
        if retry {
            exchange.retried = true
            open(for: exchange, pool(exchange.target.origin), multiplexed: false)
        } else {
            finish(exchange, .failure(error))
        }
    }
}
