import RelayHTTP
import Testing

@Suite struct ClientBasicsTests {

    @Test func getReturnsStatusHeadersAndBody() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in
            router.get("/hello") { _ in
                Response(
                    status: .ok, headers: ["Content-Type": "text/plain", "X-Answer": "42"], body: Array("hi".utf8))
            }
        }
        let response = try await client.send(ClientRequest(url: server.url("/hello")))
        #expect(response.status == 200)
        #expect(response.text == "hi")
        #expect(response.headers["x-answer"] == "42")
        #expect(response.headers["Content-Type"] == "text/plain")
        #expect(response.httpVersion == "1.1")
    }

    @Test func postSendsMethodHeadersAndBody() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in
            let echo: Router.Handler = { request in
                let summary =
                    "\(request.method) \(request.headers["content-type"] ?? "-") \(request.headers["x-probe"] ?? "-")"
                return Response(status: .ok, headers: ["X-Summary": summary], body: request.body)
            }
            router.post("/echo", echo)
            router.on(.put, "/echo", echo)
        }
        let body = Array(repeating: UInt8(ascii: "a"), count: 5000)  // above libcurl's Expect: 100-continue threshold
        let post = ClientRequest(
            method: .post, url: server.url("/echo"),
            headers: ["Content-Type": "application/json", "X-Probe": "p1"], body: body)
        let response = try await client.send(post)
        #expect(response.body == body)
        #expect(response.headers["x-summary"] == "POST application/json p1")

        let put = ClientRequest(method: .put, url: server.url("/echo"), body: Array("x".utf8))
        let putResponse = try await client.send(put)
        #expect(putResponse.headers["x-summary"] == "PUT - -")
        #expect(putResponse.text == "x")

        let empty = try await client.send(ClientRequest(method: .post, url: server.url("/echo")))
        #expect(empty.status == 200)
        #expect(empty.body.isEmpty)
    }

    @Test(arguments: [400, 401, 404, 421, 429, 500, 503])
    func errorStatusesComeBackAsResponses(code: Int) async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in
            router.get("/status") { _ in
                Response(status: HTTPStatus(code: code, reason: "Test"), body: Array("<html>nope</html>".utf8))
            }
        }
        let response = try await client.send(ClientRequest(url: server.url("/status")))
        #expect(response.status == code)
        #expect(response.text == "<html>nope</html>")
    }

    @Test func redirectsAreNeverFollowed() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in
            router.get("/from") { _ in .redirect(to: "/to") }
            router.get("/to") { _ in .text("followed") }
        }
        let response = try await client.send(ClientRequest(url: server.url("/from")))
        #expect(response.status == 302)
        #expect(response.headers["location"] == "/to")
        #expect(server.hits.load() == 1)
    }

    @Test func headRequestHasNoBody() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in
            router.get("/doc") { _ in .text("some document") }
        }
        let response = try await client.send(ClientRequest(method: .head, url: server.url("/doc")))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.headers["content-length"] == "13")
    }

    @Test func refusesURLsItCannotSendSafely() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        await #expect(throws: ClientError.self) { try await client.send(ClientRequest(url: "ftp://127.0.0.1/")) }
        await #expect(throws: ClientError.self) {
            try await client.send(ClientRequest(url: "http://127.0.0.1/a b"))
        }
        do {
            _ = try await client.send(ClientRequest(url: "file:///etc/passwd"))
            Issue.record("file URL was accepted")
        } catch {
            guard case .invalidRequest = error else { throw error }
        }
    }

    @Test func headerInjectionIsRefused() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in
            router.get("/h") { request in .text(request.headers["x-a"] ?? "-") }
        }
        await #expect(throws: ClientError.self) {
            try await client.send(ClientRequest(url: server.url("/h"), headers: ["X-A: 1\r\nX-B": "2"]))
        }
        // Line breaks inside a value are dropped rather than sent.
        let response = try await client.send(ClientRequest(url: server.url("/h"), headers: ["X-A": "1\r\nX-B: 2"]))
        #expect(response.text == "1X-B: 2")
        #expect(server.hits.load() == 1)
    }

    /// Header lines are written into one reused buffer: a short value after a long one carries
    /// nothing of it, and empty (or emptied) values are sent as empty fields.
    @Test func headerLinesCarryNothingOfThePreviousLine() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in
            router.get("/h") { request in
                let fields = ["x-long", "x-a", "x-empty", "x-breaks"].map { name in
                    request.headers[name].map { "[\($0)]" } ?? "-"
                }
                return .text(fields.joined(separator: " "))
            }
        }
        let long = String(repeating: "v", count: 300)
        let response = try await client.send(
            ClientRequest(
                url: server.url("/h"), headers: ["X-Long": long, "X-A": "1", "X-Empty": "", "X-Breaks": "\r\n"]))
        #expect(response.text == "[\(long)] [1] [] []")
    }

    @Test func closedPortFailsToConnect() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let port = try closedPort()
        do {
            _ = try await client.send(ClientRequest(url: "http://127.0.0.1:\(port)/"))
            Issue.record("connected to a closed port")
        } catch {
            guard case .connectFailed = error else { throw error }
        }
    }

    @Test func shutDownClientRefusesWork() async throws {
        let server = try LocalServer { router in router.get("/") { _ in .text("ok") } }
        let local = try HTTPClient(configuration: HTTPClientConfiguration())
        #expect(try await local.send(ClientRequest(url: server.url("/"))).status == 200)
        local.shutdown()
        await #expect(throws: ClientError.shutDown) { try await local.send(ClientRequest(url: server.url("/"))) }
    }
}
