#if canImport(Glibc)
    import Glibc
#endif

/// The TLS channel: the handshake after the connect, ciphertext in and out through the
/// connection's buffers, close_notify at close.
///
/// Errors match libcurl's path: a handshake or verification failure is `.tls` (as
/// `CURLE_SSL_CONNECT_ERROR`, `CURLE_PEER_FAILED_VERIFICATION` are), a connection that breaks
/// afterwards `.transport`.
extension DirectLoop {
    /// The loop's TLS context (the configuration's CA file on top of the system anchors, ALPN
    /// `h2` then `http/1.1`), made at the first `https` connection.
    func context() throws(ClientError) -> TLSClientContext {
        if let tlsContext { return tlsContext }
        let context = try TLSClientContext(caFile: configuration.caFile, alpn: ["h2", "http/1.1"])
        tlsContext = context
        return context
    }

    /// The TCP connect succeeded: the ClientHello goes out (the connect deadline still runs).
    func startHandshake(_ connection: DirectConnection, _ exchange: DirectExchange) {
        let session: TLSClientSession
        do throws(ClientError) {
            session = try TLSClientSession(
                context: context(), serverName: exchange.target.host, port: exchange.target.port)
        } catch {
            handshakeFailed(connection, error)
            return
        }
        connection.channel = .tls(session)
        connection.state = .handshaking
        advanceHandshake(connection)
    }

    /// Runs the handshake as far as the bytes received allow; on success the connection takes
    /// its codec from ALPN (`handshakeFinished`).
    func advanceHandshake(_ connection: DirectConnection) {
        guard let tls = connection.tls else { return }
        let done: Bool
        do throws(ClientError) {
            done = try tls.handshake()
        } catch {
            flushTLS(connection)  // the alert, if any
            handshakeFailed(connection, error)
            return
        }
        flushTLS(connection)
        if done && connection.state == .handshaking { handshakeFinished(connection) }
    }

    func handshakeFailed(_ connection: DirectConnection, _ error: ClientError) {
        let exchange = connection.exchange
        detach(connection)
        closeConnection(connection)
        if let exchange { finish(exchange, .failure(error)) }
    }

    /// Reads ciphertext until the socket has nothing more (edge-triggered), handing each piece to
    /// the session and what it decrypts to the codec.
    func readTLS(_ connection: DirectConnection) {
        guard let tls = connection.tls else { return }
        while connection.state != .closed {
            let outcome = connection.receiveCiphertext(into: cipherScratch)
            switch outcome {
            case .data: break
            case .wouldBlock: return
            case .end: tls.receiveEnd()
            case .failed(let code):
                broke(connection, .transport("receive failed: \(DirectSocket.describe(code))"))
                return
            }
            received(on: connection)
            if case .end = outcome {
                if connection.state != .closed { broke(connection, .transport("the connection closed")) }
                return
            }
        }
    }

    /// The session has new ciphertext: the handshake advances, or plaintext goes to the codec
    /// (`inbound` for HTTP/1.1, `H2Session.receive` for HTTP/2).
    func received(on connection: DirectConnection) {
        guard let tls = connection.tls else { return }
        if connection.state == .handshaking {
            advanceHandshake(connection)
            guard connection.state == .busy else { return }
        }
        plainScratch.removeAll(keepingCapacity: true)
        let result: TLSClientSession.ReadResult
        do throws(ClientError) {
            result = try tls.read(into: &plainScratch)
        } catch {
            broke(connection, error)
            return
        }
        flushTLS(connection)
        guard connection.state != .closed else { return }
        if connection.h2 != nil {
            receivedHTTP2(on: connection, ended: result != .needsInput)
            return
        }
        guard connection.state == .busy, connection.exchange != nil else {
            // Idle: plaintext or the end of the stream means the connection is done.
            if !plainScratch.isEmpty || result != .needsInput { closeConnection(connection) }
            return
        }
        if !plainScratch.isEmpty {
            connection.appendInbound(plainScratch)
            if parseInbound(connection) { return }
        }
        if result != .needsInput { inputEnded(connection) }
    }

    /// Encrypts the HTTP/2 session's frames, then sends all ciphertext the socket takes (the rest
    /// when it is writable again).
    func flushTLS(_ connection: DirectConnection) {
        guard let tls = connection.tls, connection.fd >= 0 else { return }
        if let h2 = connection.h2 {
            frameScratch.removeAll(keepingCapacity: true)
            h2.takeOutput(into: &frameScratch)
            if !frameScratch.isEmpty {
                do throws(ClientError) {
                    try tls.write(frameScratch)
                } catch {
                    broke(connection, error)
                    return
                }
            }
        }
        tls.takeOutput(into: &connection.outbound)
        switch connection.flushOutbound() {
        case .done:
            if connection.state == .busy, connection.h2 == nil, let exchange = connection.exchange {
                connection.written = exchange.bytes.count
            }
        case .wouldBlock:
            if connection.sent > 0 { connection.written = max(connection.written, 1) }
        case .failed(let code):
            broke(connection, .transport("send failed: \(DirectSocket.describe(code))"))
        }
    }

    /// The connection cannot go on: its exchanges fail, or are retried where the rules allow.
    func broke(_ connection: DirectConnection, _ error: ClientError) {
        guard connection.state != .closed, connections[connection.id] != nil else { return }
        switch connection.state {
        case .connecting, .handshaking: handshakeFailed(connection, error)
        case .idle: closeConnection(connection)
        case .busy where connection.h2 != nil: http2Broke(connection, error)
        default: failed(connection, error)
        }
    }

    /// On the way out: GOAWAY (HTTP/2), then close_notify, sent if the socket takes them now.
    func sayGoodbye(_ connection: DirectConnection) {
        guard let tls = connection.tls, connection.fd >= 0, tls.isHandshakeComplete else { return }
        connection.h2?.goAway()
        connection.channel = .plain  // no second goodbye from a failure while flushing
        frameScratch.removeAll(keepingCapacity: true)
        connection.h2?.takeOutput(into: &frameScratch)
        if !frameScratch.isEmpty {
            try? tls.write(frameScratch)
        }
        tls.close()
        tls.takeOutput(into: &connection.outbound)
        _ = connection.flushOutbound()
    }

    /// Whether an idle connection is still usable before a request that must not be sent twice:
    /// nothing to read and no EOF (`recv(MSG_PEEK)`); over TLS, whatever arrived is read first,
    /// and records without plaintext (session tickets) keep it usable.
    func isStillOpen(_ connection: DirectConnection) -> Bool {
        guard connection.tls != nil else { return DirectSocket.isQuiet(connection.fd) }
        connection.state = .idle
        readTLS(connection)
        guard connection.state == .idle else { return false }
        connection.state = .busy
        return true
    }
}

extension TLSClientSession {
    /// `write(_:)` for a whole array.
    func write(_ bytes: [UInt8]) throws(ClientError) {
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(ClientError) in try write(buffer) } }
        try result.get()
    }
}

extension H2Session {
    /// `receive(_:)` for a whole array.
    func receive(_ bytes: [UInt8]) throws(ClientError) {
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(ClientError) in try receive(buffer) } }
        try result.get()
    }
}
