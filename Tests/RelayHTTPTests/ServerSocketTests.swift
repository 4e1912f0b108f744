import Foundation
import Testing

@testable import RelayHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// The server on a real socket: keep-alive, pipelining, framing, routing, headers.
extension SocketSuite {
    @Suite struct ServerSocketTests {
        @Test func testKeepAliveServesSeveralRequestsOnOneConnection() async throws {
            try await withServer(router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                for index in 0..<5 {
                    try client.send("GET /path?n=\(index) HTTP/1.1\r\nHost: a\r\n\r\n")
                    let response = try client.readResponse()
                    #expect(response.status == 200)
                    #expect(response.text == "/path")
                    #expect(response.header("connection") == nil)
                    #expect(response.header("date") != nil)
                }
            }
        }

        @Test func testThreePipelinedRequestsInOneWriteAnswerInOrder() async throws {
            try await withServer(router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                // The first one is slow and suspends; the others must still come back after it.
                try client.send(
                    "GET /slow?ms=150 HTTP/1.1\r\nHost: a\r\n\r\n" + "GET /hello HTTP/1.1\r\nHost: a\r\n\r\n"
                        + "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nthird")
                #expect(try client.readResponse().text == "slow /slow?ms=150")
                #expect(try client.readResponse().text == "hello")
                #expect(try client.readResponse().text == "third")
            }
        }

        /// The listeners share their port among the server's own loops (SO_REUSEPORT), never with a
        /// second server: a relay started twice by mistake fails to start instead of silently taking a
        /// share of the first one's connections.
        @Test func testASecondServerOnTheSamePortFailsToStart() async throws {
            try await withServer(router: testRouter()) { server in
                let second = Server(
                    configuration: ServerConfiguration(host: "127.0.0.1", port: server.port, eventLoops: 2),
                    responder: testRouter().responder)
                let error = #expect(throws: SocketError.self) { try second.start() }
                let text = error.map { "\($0)" } ?? ""
                #expect(error?.code == EADDRINUSE, "\(text)")
                #expect(text.contains("another server"), "\(text)")
                // The first one still answers every connection.
                for _ in 0..<8 {
                    let client = try RawClient(port: server.port)
                    try client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
                    #expect(try client.readResponse().text == "hello")
                }
            }
            // Once it is gone, the port can be taken again at once (connections in TIME_WAIT do not count).
            var port = 0
            try await withServer(router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                try client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
                _ = try client.readResponse()
                port = server.port
            }
            let again = Server(
                configuration: ServerConfiguration(host: "127.0.0.1", port: port, eventLoops: 2),
                responder: testRouter().responder)
            try again.start()
            again.shutdown()
            await again.waitUntilStopped()
        }

        @Test func testARequestSentOneByteAtATime() async throws {
            try await withServer(router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                for byte in Array("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nbyte".utf8) {
                    try client.send([byte])
                    try await Task.sleep(for: .milliseconds(1))
                }
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.text == "byte")
            }
        }

        @Test func testChunkedUpload() async throws {
            try await withServer(router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                try client.send("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
                try client.send("6\r\nchunk-\r\n")
                try await Task.sleep(for: .milliseconds(20))
                try client.send("4;ext=1\r\ned!!\r\n0\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.text == "chunk-ed!!")
            }
        }

        @Test func testExpectContinue() async throws {
            try await withServer(router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                try client.send("POST /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
                #expect(try client.readResponse().status == 100)
                try client.send("ok")
                #expect(try client.readResponse().text == "ok")
            }
        }

        @Test func testHeadKeepsTheLengthAndDropsTheBody() async throws {
            try await withServer(router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                try client.send("HEAD /hello HTTP/1.1\r\nHost: a\r\n\r\nGET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
                let head = try client.readResponse(expectBody: false)
                #expect(head.status == 200)
                #expect(head.header("content-length") == "5")
                // The next response starts right after the head: no body bytes were sent for HEAD.
                #expect(try client.readResponse().text == "hello")
            }
        }

        @Test func testUnknownPathMethodAndOptions() async throws {
            try await withServer(router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                try client.send("GET /nope HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(try client.readResponse().status == 404)
                try client.send("DELETE /hello HTTP/1.1\r\nHost: a\r\n\r\n")
                let notAllowed = try client.readResponse()
                #expect(notAllowed.status == 405)
                #expect(notAllowed.header("allow") == "GET, HEAD, OPTIONS")
                try client.send("OPTIONS /echo HTTP/1.1\r\nHost: a\r\n\r\n")
                let options = try client.readResponse()
                #expect(options.status == 204)
                #expect(options.header("allow") == "OPTIONS, POST")
            }
        }

        @Test func testHTTP10ClosesUnlessKeepAliveIsAsked() async throws {
            try await withServer(router: testRouter()) { server in
                let closing = try RawClient(port: server.port)
                try closing.send("GET /hello HTTP/1.0\r\n\r\n")
                let response = try closing.readResponse()
                #expect(response.header("connection") == "close")
                #expect(closing.isClosedByServer())

                let keeping = try RawClient(port: server.port)
                try keeping.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                #expect(try keeping.readResponse().header("connection") == "keep-alive")
                try keeping.send("GET /hello HTTP/1.0\r\n\r\n")
                #expect(try keeping.readResponse().text == "hello")
            }
        }

        @Test func testConnectionCloseFromTheClient() async throws {
            try await withServer(router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                try client.send("GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                #expect(try client.readResponse().header("connection") == "close")
                #expect(client.isClosedByServer())
            }
        }

        @Test func testHandlerHeadersWithLineBreaksAreDropped() async throws {
            try await withServer(router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                try client.send("GET /inject HTTP/1.1\r\nHost: a\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.header("x-good") == "yes")
                #expect(response.header("x-bad") == nil)
                #expect(response.header("set-cookie") == nil)
            }
        }

        @Test func testForwardedHeadersAreIgnoredFromUntrustedPeers() async throws {
            try await withServer(router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                try client.send(
                    "GET /origin HTTP/1.1\r\nHost: direct:1\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: evil\r\n"
                        + "X-Forwarded-For: 203.0.113.9\r\n\r\n")
                #expect(try client.readResponse().text == "http direct:1 127.0.0.1")
            }
        }

        @Test func testForwardedHeadersAreHonouredFromATrustedProxy() async throws {
            var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1)
            configuration.trustedProxies = TrustedProxies([IPAddressRange("127.0.0.0/8")!])
            try await withServer(configuration, router: testRouter()) { server in
                let client = try RawClient(port: server.port)
                try client.send(
                    "GET /origin HTTP/1.1\r\nHost: internal:8080\r\nX-Forwarded-Proto: https\r\n"
                        + "X-Forwarded-Host: relay.example\r\nX-Forwarded-For: 198.51.100.7, 203.0.113.9\r\n\r\n")
                #expect(try client.readResponse().text == "https relay.example 203.0.113.9")
            }
        }
    }
}
