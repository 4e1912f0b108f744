import RelayHTTP
import Testing

/// `TLSClientSession` against nginx (`TLSServer`: a self-signed certificate for `localhost` and
/// 127.0.0.1), driven over a real socket by `TLSSocketDriver` on a thread of its own.
@Suite(.enabled(if: TLSServer.available, "needs nginx and openssl"))
struct TLSClientSessionTests {
    @Test func http11RequestOverTLS() async throws {
        let server = try await TLSServer()
        let (port, caFile) = (server.port, server.certificate)
        let (protocolName, response, end) = try await onOwnThread {
            let context = try TLSClientContext(caFile: caFile, alpn: ["http/1.1"])
            let driver = try TLSSocketDriver(
                port: port, session: TLSClientSession(context: context, serverName: "localhost", port: port))
            try driver.handshake()
            try driver.send(closingRequest)
            let (plaintext, end) = try driver.readToEnd()
            return (driver.session.negotiatedProtocol, String(decoding: plaintext, as: UTF8.self), end)
        }
        #expect(protocolName == "http/1.1")
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.hasSuffix("\r\n\r\nok"))
        #expect(end == .closed)  // nginx sends close_notify before closing
    }

    @Test func alpnChoosesH2WhenOfferedAndNothingWhenNotAsked() async throws {
        let server = try await TLSServer()
        let http11Only = try await TLSServer(http2: false)
        let (port, port11, caFile) = (server.port, http11Only.port, server.certificate)
        let caFile11 = http11Only.certificate
        let names = try await onOwnThread {
            func negotiate(_ port: Int, _ caFile: String, _ alpn: [String]) throws -> String {
                let context = try TLSClientContext(caFile: caFile, alpn: alpn)
                let driver = try TLSSocketDriver(
                    port: port, session: TLSClientSession(context: context, serverName: "localhost", port: port))
                try driver.handshake()
                return driver.session.negotiatedProtocol ?? "none"
            }
            return [
                try negotiate(port, caFile, ["h2", "http/1.1"]),
                try negotiate(port11, caFile11, ["h2", "http/1.1"]),
                try negotiate(port, caFile, []),
            ]
        }
        #expect(names == ["h2", "http/1.1", "none"])
    }

    @Test func plaintextWrittenBeforeTheHandshakeIsSentAfterIt() async throws {
        let server = try await TLSServer(http2: false)
        let (port, caFile) = (server.port, server.certificate)
        let response = try await onOwnThread {
            let context = try TLSClientContext(caFile: caFile, alpn: ["http/1.1"])
            let driver = try TLSSocketDriver(
                port: port, session: TLSClientSession(context: context, serverName: "localhost", port: port))
            try Array(closingRequest.utf8).withUnsafeBytes { try driver.session.write($0) }
            try driver.handshake()
            return String(decoding: try driver.readToEnd().plaintext, as: UTF8.self)
        }
        #expect(response.hasSuffix("\r\n\r\nok"))
    }

    @Test func keptAliveConnectionCarriesSeveralRequestsThenClosesCleanly() async throws {
        let server = try await TLSServer(http2: false)
        let (port, caFile) = (server.port, server.certificate)
        let (responses, closeQueued, end) = try await onOwnThread {
            let context = try TLSClientContext(caFile: caFile, alpn: ["http/1.1"])
            let driver = try TLSSocketDriver(
                port: port, session: TLSClientSession(context: context, serverName: "localhost", port: port))
            try driver.handshake()
            var responses: [String] = []
            for _ in 0..<3 {
                try driver.send(keptRequest)
                responses.append(try driver.read(until: "\r\n\r\nok"))
            }
            driver.session.close()
            let closeQueued = driver.session.hasOutput  // close_notify
            try driver.flush()
            return (responses, closeQueued, try driver.readToEnd().end)
        }
        #expect(responses.count == 3)
        #expect(responses.allSatisfy { $0.hasPrefix("HTTP/1.1 200 OK\r\n") && $0.hasSuffix("ok") })
        #expect(closeQueued)
        // nginx answers close_notify by closing at once, without its own (a missing close_notify
        // would leave it waiting 75 s, and the driver's 30 s receive timeout would fail the test).
        #expect(end == .truncated)
        #expect(server.connectionsLogged == 1)
    }

    @Test func anIPLiteralVerifiesAgainstTheCertificatesAddress() async throws {
        // TLSServer's certificate carries `IP:127.0.0.1` beside `DNS:localhost`.
        let server = try await TLSServer()
        let (port, caFile) = (server.port, server.certificate)
        let (good, otherAddress, bracketedV6) = try await onOwnThread {
            let context = try TLSClientContext(caFile: caFile, alpn: ["http/1.1"])
            func attempt(_ name: String) -> String {
                tlsFailure {
                    try TLSSocketDriver(
                        port: port, session: TLSClientSession(context: context, serverName: name, port: port)
                    )
                    .handshake()
                }
            }
            return (attempt("127.0.0.1"), attempt("127.0.0.2"), attempt("[::1]"))
        }
        #expect(good == "no error")
        #expect(otherAddress == "certificate verification failed: IP address mismatch")
        #expect(bracketedV6 == "certificate verification failed: IP address mismatch")
    }

    @Test func eachTLSVersionFromTheMinimumUp() async throws {
        let tls12 = try await TLSServer(protocols: "TLSv1.2")
        let tls13 = try await TLSServer(protocols: "TLSv1.3")
        let servers = [(tls12.port, tls12.certificate), (tls13.port, tls13.certificate)]
        let versions = try await onOwnThread {
            try servers.map { port, caFile in
                let context = try TLSClientContext(caFile: caFile, alpn: ["h2"])
                let driver = try TLSSocketDriver(
                    port: port, session: TLSClientSession(context: context, serverName: "localhost", port: port))
                try driver.handshake()
                return driver.session.protocolVersion
            }
        }
        #expect(versions == ["TLSv1.2", "TLSv1.3"])
    }
}
