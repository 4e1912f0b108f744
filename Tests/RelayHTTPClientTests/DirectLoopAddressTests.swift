import Testing

@testable import RelayHTTP

/// The loop's own pieces, below `HTTPClient`: what a real resolver on this machine cannot show.
@Suite struct DirectLoopAddressTests {
    /// A name with two addresses, the first refusing connections: the second is tried and answers.
    @Test func everyAddressIsTriedInOrder() async throws {
        let server = try LocalServer { router in router.get("/") { _ in .text("second") } }
        let closed = try closedPort()
        let port = server.server.port
        let configuration = HTTPClientConfiguration(directClient: true)
        let counters = ClientStatisticsCounters()
        let loop = try DirectLoop(configuration: configuration, statistics: counters)
        let loopback = try #require(IPAddress("127.0.0.1"))
        // Before the thread starts, so the cache is not shared with it.
        loop.dns.store(
            "two.test \(port)", [DirectAddress(loopback, port: closed), DirectAddress(loopback, port: port)],
            now: DirectLoop.monotonicMilliseconds())
        loop.startThread()
        defer { loop.stop() }
        let request = ClientRequest(url: "http://two.test:\(port)/")
        let exchange = try DirectExchange(
            request, target: try #require(DirectTarget(request.url)), configuration: configuration)
        let result = await withCheckedContinuation { continuation in
            exchange.continuation = continuation
            loop.submit(exchange)
        }
        let response = try result.get()
        #expect(response.text == "second")
        #expect(counters.connectionsOpened.load(ordering: .relaxed) == 1)
    }
}
