import RelayHTTP
import RelayTestSupport
import Testing

@Suite struct ClientConnectionTests {
    @Test func sequentialRequestsReuseOneConnection() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in router.get("/n") { _ in .text("n") } }
        var opened = 0
        for _ in 0..<20 {
            let response = try await client.send(ClientRequest(url: server.url("/n")))
            #expect(response.status == 200)
            opened += response.connectionsOpened
        }
        #expect(opened == 1)
        #expect(client.statistics.connectionsOpened == 1)
        #expect(server.server.openConnections == 1)
        #expect(server.hits.load() == 20)
    }

    @Test func concurrentRoundsReuseThePool() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in
            router.get("/wait") { _ in
                try await Task.sleep(for: .milliseconds(30))
                return .text("ok")
            }
        }
        for _ in 0..<4 {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<16 {
                    group.addTask { try await client.send(ClientRequest(url: server.url("/wait"))).status }
                }
                for try await status in group { #expect(status == 200) }
            }
        }
        let statistics = client.statistics
        #expect(statistics.completed == 64)
        #expect(statistics.connectionsOpened <= 16)
        #expect(statistics.connectionsOpened == server.server.openConnections)
    }

    @Test func hundredsOfConcurrentTransfers() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in
            router.get("/echo/:n") { request in
                try await Task.sleep(for: .milliseconds(20))
                return .text(request.parameters["n"] ?? "")
            }
        }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<300 {
                group.addTask {
                    try await client.send(ClientRequest(url: server.url("/echo/\(index)"))).text == "\(index)"
                }
            }
            for try await matched in group { #expect(matched) }
        }
        #expect(client.statistics.completed == 300)
        #expect(client.statistics.inFlight == 0)
    }

    @Test func aConnectionTheServerClosedIsReplaced() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        // The handler suspends: a request answered synchronously re-arms the server's header timer
        // rather than its keep-alive timer (reported to the lead), which would keep this open 10 s.
        let server = try LocalServer(keepAlive: .milliseconds(100)) { router in
            router.get("/") { _ in
                try await Task.sleep(for: .milliseconds(1))
                return .text("ok")
            }
        }
        #expect(try await client.send(ClientRequest(url: server.url("/"))).status == 200)
        try await waitUntil("the server to close every connection") { server.server.openConnections == 0 }
        let again = try await client.send(ClientRequest(url: server.url("/")))
        #expect(again.status == 200)
        #expect(again.connectionsOpened == 1)
    }

    @Test func publicOnlyPolicyRefusesLoopback() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in router.get("/") { _ in .text("ok") } }
        await #expect(throws: ClientError.addressRefused) {
            try await client.send(ClientRequest(url: server.url("/"), addressPolicy: .publicOnly))
        }
        await #expect(throws: ClientError.addressRefused) {
            try await client.send(
                ClientRequest(url: "http://localhost:\(server.server.port)/", addressPolicy: .publicOnly))
        }
        #expect(server.hits.load() == 0)
        let strict = try HTTPClient(
            configuration: HTTPClientConfiguration(addressPolicy: .publicOnly))
        await #expect(throws: ClientError.addressRefused) { try await strict.send(ClientRequest(url: server.url("/"))) }
        let allowed = try await strict.send(ClientRequest(url: server.url("/"), addressPolicy: .any))
        #expect(allowed.status == 200)
    }

    @Test func pinnedAddressConnectsThereAndKeepsTheHostName() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in
            router.get("/host") { request in .text(request.headers["host"] ?? "-") }
        }
        let port = server.server.port
        let request = ClientRequest(url: "http://pinned.invalid:\(port)/host", pinnedAddress: IPAddress("127.0.0.1"))
        let response = try await client.send(request)
        #expect(response.text == "pinned.invalid:\(port)")
        // The pin is per request: without it the name does not resolve.
        await #expect(throws: ClientError.self) {
            try await client.send(ClientRequest(url: "http://pinned.invalid:\(port)/host"))
        }
        var pinnedPublicOnly = request
        pinnedPublicOnly.addressPolicy = .publicOnly
        await #expect(throws: ClientError.addressRefused) { try await client.send(pinnedPublicOnly) }
    }

    @Test(arguments: [
        ("8.8.8.8", true), ("1.1.1.1", true), ("2606:4700:4700::1111", true), ("::ffff:8.8.8.8", true),
        ("64:ff9b::808:808", true), ("127.0.0.1", false), ("10.1.2.3", false), ("172.16.0.1", false),
        ("172.31.255.255", false), ("192.168.1.1", false), ("169.254.169.254", false), ("100.64.0.1", false),
        ("0.0.0.0", false), ("224.0.0.1", false), ("255.255.255.255", false), ("198.18.0.1", false),
        ("::1", false), ("::", false), ("fe80::1", false), ("fd00::1", false), ("::ffff:127.0.0.1", false),
        ("::ffff:10.0.0.1", false), ("64:ff9b::a00:1", false), ("2001:db8::1", false), ("2002:a00:1::", false),
        ("ff02::1", false), ("2001::1", false),
    ])
    func publicAddressClassification(address: String, expected: Bool) throws {
        let parsed = try #require(IPAddress(address))
        #expect(parsed.isPublic == expected)
    }
}
