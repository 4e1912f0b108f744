import COpenSSL
import RelayHTTP
import Testing

/// What `TLSClientSession` must refuse, and how its errors stay its own.
@Suite(.enabled(if: TLSServer.available, "needs nginx and openssl"))
struct TLSClientFailureTests {
    @Test func anUntrustedCertificateFails() async throws {
        let server = try await TLSServer()
        let port = server.port
        let (message, cached) = try await onOwnThread {
            let context = try TLSClientContext(alpn: ["http/1.1"])  // no CA file: the system store only
            let message = tlsFailure {
                try TLSSocketDriver(
                    port: port, session: TLSClientSession(context: context, serverName: "localhost", port: port)
                ).handshake()
            }
            return (message, context.cachedSessionCount)
        }
        #expect(message == "certificate verification failed: self-signed certificate")
        #expect(cached == 0)
    }

    @Test func aCertificateForAnotherNameFails() async throws {
        let server = try await TLSServer()
        let (port, caFile) = (server.port, server.certificate)
        let message = try await onOwnThread {
            let context = try TLSClientContext(caFile: caFile)
            return tlsFailure {
                try TLSSocketDriver(
                    port: port, session: TLSClientSession(context: context, serverName: "wrong.invalid", port: port)
                ).handshake()
            }
        }
        #expect(message == "certificate verification failed: hostname mismatch")
    }

    /// libcurl's CAINFO on Debian replaces only the bundle and keeps `CApath /etc/ssl/certs`, so the
    /// system anchors stay trusted: the CA file adds one here too, it does not replace the store.
    @Test func theCAFileAddsToTheSystemAnchors() async throws {
        let server = try await TLSServer()
        let caFile = server.certificate
        let (system, withFile) = try await onOwnThread {
            (try TLSClientContext().trustAnchorCount, try TLSClientContext(caFile: caFile).trustAnchorCount)
        }
        #expect(system > 50)  // Debian's ca-certificates bundle
        #expect(withFile == system + 1)
    }

    @Test func anUnreadableCAFileIsAnError() async throws {
        let message = try await onOwnThread {
            tlsFailure { _ = try TLSClientContext(caFile: "/nonexistent/ca.pem") }
        }
        #expect(message.hasPrefix("loading the CA file: error:"))
    }

    @Test func aServerBelowTLS12IsRefused() async throws {
        let server = try await TLSServer(protocols: "TLSv1.1")
        let (port, caFile) = (server.port, server.certificate)
        let (message, minimum) = try await onOwnThread {
            let context = try TLSClientContext(caFile: caFile)
            let message = tlsFailure {
                try TLSSocketDriver(
                    port: port, session: TLSClientSession(context: context, serverName: "localhost", port: port)
                ).handshake()
            }
            return (message, context.minimumProtocolVersion)
        }
        #expect(message.contains("alert protocol version") || message.contains("unsupported protocol"))
        // Debian's OpenSSL refuses TLS 1.1 at its default security level anyway; the context's own
        // floor is what holds if that default changes.
        #expect(minimum == 0x0303)
    }

    @Test func garbageFromTheServerIsATLSError() async throws {
        let messages = try await onOwnThread {
            let context = try TLSClientContext(alpn: ["http/1.1"])
            return [Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8), [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28]].map {
                reply in
                tlsFailure {
                    let session = try TLSClientSession(context: context, serverName: "localhost", port: 443)
                    guard try !session.handshake() else { return }
                    var hello: [UInt8] = []
                    session.takeOutput(into: &hello)
                    guard hello.first == 0x16 else { return }  // a handshake record: the ClientHello
                    reply.withUnsafeBytes { session.receive($0) }
                    _ = try session.handshake()
                }
            }
        }
        #expect(messages[0].hasSuffix(":SSL routines::wrong version number") || messages[0].contains("packet length"))
        #expect(messages[1].hasSuffix("alert handshake failure"))
    }

    @Test func anEndWithoutCloseNotifyIsTruncation() async throws {
        let server = try await TLSServer(http2: false)
        let (port, caFile) = (server.port, server.certificate)
        let (atBoundary, midRecord, afterResponse) = try await onOwnThread {
            let context = try TLSClientContext(caFile: caFile, alpn: ["http/1.1"])
            func connected() throws -> TLSSocketDriver {
                let driver = try TLSSocketDriver(
                    port: port, session: TLSClientSession(context: context, serverName: "localhost", port: port))
                try driver.handshake()
                return driver
            }
            var plaintext: [UInt8] = []
            let first = try connected()
            first.session.receiveEnd()
            let atBoundary = try first.session.read(into: &plaintext)
            let second = try connected()
            ([0x17, 0x03, 0x03, 0x00, 0x40, 1, 2, 3] as [UInt8]).withUnsafeBytes { second.session.receive($0) }
            second.session.receiveEnd()
            let midRecord = try second.session.read(into: &plaintext)
            let third = try connected()
            try third.send(keptRequest)
            _ = try third.read(until: "ok")
            third.session.receiveEnd()
            let afterResponse = try third.session.read(into: &plaintext)
            return (atBoundary, midRecord, afterResponse)
        }
        #expect(atBoundary == .truncated)
        #expect(midRecord == .truncated)
        #expect(afterResponse == .truncated)
    }

    /// SSL_get_error(3) reads the thread's error queue: an error left there by anything else on the
    /// thread would turn a plain "need more bytes" into a failure (SSL_do_handshake clears it itself,
    /// SSL_read does not), and a failure's reason must not stay behind for the next connection.
    @Test func theErrorQueueIsClearedBeforeAndAfterEachCall() async throws {
        let server = try await TLSServer()
        let (port, caFile) = (server.port, server.certificate)
        let (waited, leftover, failed) = try await onOwnThread {
            let trusting = try TLSClientContext(caFile: caFile, alpn: ["h2"])
            let driver = try TLSSocketDriver(
                port: port, session: TLSClientSession(context: trusting, serverName: "localhost", port: port))
            try driver.handshake()
            _ = BIO_new_file("/nonexistent/file", "r")  // queues an unrelated error on this thread
            let queuedBefore = ERR_peek_error() != 0
            var plaintext: [UInt8] = []
            let waited = try queuedBefore && driver.session.read(into: &plaintext) == .needsInput
            let failure = tlsFailure {
                try TLSSocketDriver(
                    port: port,
                    session: TLSClientSession(context: TLSClientContext(), serverName: "localhost", port: port)
                ).handshake()
            }
            return (waited, ERR_peek_error(), failure)
        }
        #expect(waited)
        #expect(leftover == 0)
        #expect(failed.hasPrefix("certificate verification failed"))
    }
}
