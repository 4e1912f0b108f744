import Foundation
import Testing

@testable import RelayHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Graceful drain: a real SIGTERM delivered to this process, handled by `ShutdownSignals`.
extension SocketSuite {
    @Suite struct ServerShutdownTests {
        @Test func testSIGTERMDrainsAnInFlightRequestThenStops() async throws {
            let server = Server(
                configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 2),
                responder: testRouter().responder)
            let signals = ShutdownSignals { _ in server.shutdown() }
            defer { signals.cancel() }
            try server.start()
            let port = server.port

            let inFlight = try RawClient(port: port)
            try inFlight.send("GET /slow?ms=700 HTTP/1.1\r\nHost: a\r\n\r\n")
            let idle = try RawClient(port: port)
            try await Task.sleep(for: .milliseconds(150))

            kill(getpid(), SIGTERM)

            // The idle keep-alive connection is closed at once; the slow request still completes.
            #expect(idle.isClosedByServer())
            let response = try inFlight.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "slow /slow?ms=700")
            #expect(response.header("connection") == "close")
            await server.waitUntilStopped()
            let error = #expect(throws: (any Error).self, "still accepting after shutdown") {
                try RawClient(port: port)
            }
            let text = error.map { "\($0)" } ?? ""
            #expect(text.hasPrefix("connect to 127.0.0.1:\(port)"), "\(text)")
            #expect(text.contains("refused"), "\(text)")
        }

        @Test func testDrainGivesUpAfterTheTimeout() async throws {
            var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1)
            configuration.drainTimeout = .milliseconds(300)
            let server = Server(configuration: configuration, responder: testRouter().responder)
            try server.start()
            let client = try RawClient(port: server.port)
            try client.send("GET /slow?ms=10000 HTTP/1.1\r\nHost: a\r\n\r\n")
            try await Task.sleep(for: .milliseconds(100))
            let started = Date()
            server.shutdown()
            await server.waitUntilStopped()
            #expect(Date().timeIntervalSince(started) < 2)
            #expect(client.isClosedByServer())
        }
    }
}
