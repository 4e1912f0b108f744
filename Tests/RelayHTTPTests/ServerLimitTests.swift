import Foundation
import Testing

@testable import RelayHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Limits, timeouts, refusals and overload on a real socket.
extension SocketSuite {
    @Suite struct ServerLimitTests {
        private func configuration(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
            var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 2)
            adjust(&configuration)
            return configuration
        }

        private func assertRefused(_ request: String, status: Int, sourceLocation: SourceLocation = #_sourceLocation)
            async throws
        {
            try await withServer(configuration(), router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                try? client.send(request)
                let response = try client.readResponse()
                #expect(response.status == status, sourceLocation: sourceLocation)
                #expect(response.header("connection") == "close", sourceLocation: sourceLocation)
                #expect(client.isClosedByServer(), "connection left open", sourceLocation: sourceLocation)
            }
        }

        @Test func testSmugglingShapesGet400AndClose() async throws {
            try await assertRefused(
                "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                status: 400)
            try await assertRefused(
                "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", status: 400)
            try await assertRefused("GET /hello HTTP/1.1\r\nHost: a\r\nX: a\r\n folded\r\n\r\n", status: 400)
            try await assertRefused("GET /hello HTTP/1.1\r\nHost: a\rX: b\r\n\r\n", status: 400)
            try await assertRefused(
                "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n", status: 400
            )
            // A trailer line without a colon, and a framing field sent as a trailer.
            try await assertRefused(
                "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\nX-Sum\r\n\r\n",
                status: 400)
            try await assertRefused(
                "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\nContent-Length: 9\r\n\r\n",
                status: 400)
        }

        @Test func testOversizeRequestsAreRefused() async throws {
            try await assertRefused(
                "GET /" + String(repeating: "a", count: 9 * 1024) + " HTTP/1.1\r\nHost: a\r\n\r\n", status: 414)
            try await assertRefused(
                "GET /hello HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 17 * 1024) + "\r\n\r\n",
                status: 431
            )
            let fields = (0..<101).map { "X-\($0): v\r\n" }.joined()
            try await assertRefused("GET /hello HTTP/1.1\r\nHost: a\r\n" + fields + "\r\n", status: 431)
        }

        @Test func testAnOversizeBodyIsRefusedBeforeItIsSent() async throws {
            try await withServer(configuration(), router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                try client.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n")
                #expect(try client.readResponse().status == 413)
                #expect(client.isClosedByServer())
            }
        }

        @Test func testSlowlorisHeadersTrickledPastTheTimeoutGet408() async throws {
            let configuration = configuration { $0.headerReadTimeout = .milliseconds(600) }
            try await withServer(configuration, router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                let started = Date()
                // One byte every 100 ms keeps the connection busy but must not extend the deadline.
                for byte in Array("GET /hello HTTP/1.1\r\nHost: a\r\nX-Slow: ".utf8) {
                    guard (try? client.send([byte])) != nil else { break }
                    try await Task.sleep(for: .milliseconds(100))
                    if Date().timeIntervalSince(started) > 2 { break }
                }
                let response = try client.readResponse()
                #expect(response.status == 408)
                #expect(client.isClosedByServer())
                #expect(Date().timeIntervalSince(started) < 3)
            }
        }

        @Test func testAStalledBodyGets408() async throws {
            let configuration = configuration { $0.bodyIdleTimeout = .milliseconds(500) }
            try await withServer(configuration, router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                try client.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
                #expect(try client.readResponse().status == 408)
                #expect(client.isClosedByServer())
            }
        }

        @Test func testIdleKeepAliveConnectionsAreClosed() async throws {
            let configuration = configuration { $0.keepAliveTimeout = .milliseconds(400) }
            try await withServer(configuration, router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                try client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(try client.readResponse().status == 200)
                #expect(client.isClosedByServer())
            }
        }

        @Test func testAClientThatNeverReadsCannotGrowServerMemory() async throws {
            let configuration = configuration {
                $0.writeTimeout = .milliseconds(1000)
                $0.eventLoops = 1
            }
            try await withServer(configuration, router: testRouter()) { server in
                let stalled = try RawClient(port: server.port)
                let flags = fcntl(stalled.fd, F_GETFL)
                _ = fcntl(stalled.fd, F_SETFL, flags | O_NONBLOCK)
                let request = Array("GET /big?size=1048576 HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
                // If the server kept reading and answering, the client could send forever.
                var sent = 0
                var blocked = false
                for _ in 0..<2_000_000 {
                    let count = request.withUnsafeBytes {
                        send(stalled.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                    }
                    if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                        blocked = true
                        break
                    }
                    if count < 0 { break }
                    sent += 1
                }
                #expect(blocked, "the server kept consuming input (\(sent) requests sent)")
                #expect(sent < 100_000)

                // Other clients are still served while the stalled one holds its place…
                let other = try RawClient(port: server.port)
                try other.send("GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                #expect(try other.readResponse().text == "hello")

                // …and the stalled connection is dropped once the write timeout passes.
                let deadline = Date().addingTimeInterval(5)
                while server.openConnections > 0 && Date() < deadline {
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(server.openConnections == 0)
            }
        }

        @Test func testConnectionsBeyondTheLimitGet503() async throws {
            let configuration = configuration { $0.maxConnections = 3 }
            try await withServer(configuration, router: testRouter()) { server in
                let clients = try (0..<3).map { _ in try RawClient(port: server.port) }
                for client in clients {
                    try client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
                    #expect(try client.readResponse().status == 200)
                }
                let extra = try RawClient(port: server.port)
                try? extra.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
                let response = try extra.readResponse()
                #expect(response.status == 503)
                #expect(response.header("retry-after") == "1")
                #expect(extra.isClosedByServer())
                // The admitted clients keep working.
                try clients[0].send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(try clients[0].readResponse().status == 200)
            }
        }

        @Test func testManyConcurrentConnections() async throws {
            try await withServer(configuration(), router: testRouter()) { server in
                let clients = try (0..<400).map { _ in try RawClient(port: server.port) }
                for round in 0..<3 {
                    for (index, client) in clients.enumerated() {
                        let path = index % 7 == 0 ? "/slow?ms=20&i=\(index)" : "/path?i=\(index)"
                        try client.send("GET \(path) HTTP/1.1\r\nHost: a\r\n\r\n")
                    }
                    for (index, client) in clients.enumerated() {
                        let response = try client.readResponse()
                        #expect(response.status == 200, "round \(round) client \(index)")
                        let expected = index % 7 == 0 ? "slow /slow?ms=20&i=\(index)" : "/path"
                        #expect(response.text == expected)
                    }
                }
                #expect(server.openConnections == 400)
            }
        }
    }
}
