import RelayHTTP
import Synchronization
import Testing

/// HTTP/2 to an origin that offers it: a burst shares a few connections; an origin whose ALPN
/// says HTTP/1.1 gets a connection per request in flight; TLS sessions resume across the
/// client's connections; a request queued for a stream still ends at its deadline.
@Suite(.enabled(if: TLSServer.available, "needs nginx and openssl"))
struct ClientMultiplexingTests {

    private static func burst(_ client: HTTPClient, _ url: String, count: Int) async throws -> [String] {
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let response = try await client.send(ClientRequest(url: url))
                    #expect(response.status == 200)
                    return response.httpVersion
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// Polls `condition` every 10 ms for up to 60 s (the machine may be loaded).
    private static func waitUntil(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<6000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func aBurstToAnHTTP2OriginSharesAFewConnections() async throws {
        let backend = try SlowBackend(delay: .milliseconds(200))
        let server = try await TLSServer(upstreamPort: backend.port)
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(
                caFile: server.certificate, maxMultiplexedConnectionsPerHost: 2, maxStreamsPerConnection: 16))
        let versions = try await Self.burst(client, "https://localhost:\(server.port)/slow", count: 200)
        #expect(versions.count == 200)
        #expect(versions.allSatisfy { $0 == "2" })
        // 2 connections of 16 streams: never more, however many requests wait.
        #expect(client.statistics.connectionsOpened <= 2)
        #expect(server.connectionsLogged <= 2)
        #expect(backend.gauge.mostAtOnce <= 32)
        #expect(client.statistics.inFlight == 0)
    }

    @Test func anOriginWhoseALPNSaysHTTP1GetsAConnectionPerRequestInFlight() async throws {
        // Long enough that the requests overlap however slowly the 64 handshakes go.
        let backend = try SlowBackend(delay: .seconds(2))
        let server = try await TLSServer(http2: false, upstreamPort: backend.port)
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(
                caFile: server.certificate, maxMultiplexedConnectionsPerHost: 2))
        let versions = try await Self.burst(client, "https://localhost:\(server.port)/slow", count: 64)
        #expect(versions.allSatisfy { $0 == "1.1" })
        // Far more than the 2 connections an HTTP/2 origin would get: requests ran side by side.
        #expect(backend.gauge.mostAtOnce > 8)
        #expect(client.statistics.connectionsOpened > 8)
        // Later requests reuse the pool as before.
        let opened = client.statistics.connectionsOpened
        _ = try await Self.burst(client, "https://localhost:\(server.port)/quick", count: 8)
        #expect(client.statistics.connectionsOpened == opened)
    }

    @Test func newConnectionsResumeTheTLSSessionWhicheverHandleOpensThem() async throws {
        // keepalive_timeout 0: nginx closes every connection after one response. TLS 1.2: a
        // session in nginx's cache resumes any number of connections, where a TLS 1.3 ticket
        // from that cache serves one (OpenSSL's anti-replay), so which of the side-by-side
        // connections resumed would depend on timing, not on the client.
        let server = try await TLSServer(http2: false, keepAliveTimeout: "0", protocols: "TLSv1.2")
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(caFile: server.certificate))
        let url = "https://localhost:\(server.port)/"
        _ = try await client.send(ClientRequest(url: url))
        // Side by side, so most use easy handles that never met this server.
        _ = try await Self.burst(client, url, count: 6)
        let reused = await server.log(lines: 7).map { $0.split(separator: " ")[2] }
        #expect(reused.count == 7)
        #expect(reused.first == ".")
        #expect(reused.dropFirst().allSatisfy { $0 == "r" }, "\(server.log)")
    }

    @Test func aRequestQueuedForAStreamStillEndsAtItsDeadline() async throws {
        // The holder's stream stays busy long after the queued request's 1 s deadline, even on a
        // loaded machine.
        let backend = try SlowBackend(delay: .seconds(10))
        let server = try await TLSServer(upstreamPort: backend.port)
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(
                caFile: server.certificate, maxMultiplexedConnectionsPerHost: 1, maxStreamsPerConnection: 1))
        let base = "https://localhost:\(server.port)"
        #expect(try await client.send(ClientRequest(url: base + "/quick")).httpVersion == "2")
        let order = Mutex<[String]>([])
        async let holder: Void = {
            _ = try? await client.send(ClientRequest(url: base + "/slow", timeout: .seconds(60)))
            order.withLock { $0.append("holder") }
        }()
        #expect(await Self.waitUntil { backend.gauge.current == 1 })
        // The one stream is taken: this request waits in libcurl's queue (where libcurl's own
        // timeout does not run) and must fail at its deadline, long before the stream frees up.
        await #expect(throws: ClientError.timedOut) {
            try await client.send(ClientRequest(url: base + "/slow", timeout: .seconds(1)))
        }
        order.withLock { $0.append("queued") }
        await holder
        #expect(order.withLock { $0 } == ["queued", "holder"])
        #expect(backend.gauge.mostAtOnce == 1)
    }
}

/// A backend behind nginx whose `/slow` answers after `delay`, counting requests in progress.
final class SlowBackend: Sendable {
    /// Requests in progress now and the most at once.
    final class Gauge: Sendable {
        private let now = Atomic<Int>(0)
        private let most = Atomic<Int>(0)

        func enter() { most.max(now.add(1, ordering: .relaxed).newValue, ordering: .relaxed) }
        func leave() { now.subtract(1, ordering: .relaxed) }
        var current: Int { now.load(ordering: .relaxed) }
        var mostAtOnce: Int { most.load(ordering: .relaxed) }
    }

    let local: LocalServer
    let gauge = Gauge()

    init(delay: Duration) throws {
        let gauge = gauge
        local = try LocalServer { router in
            router.get("/slow") { _ in
                gauge.enter()
                defer { gauge.leave() }
                try await Task.sleep(for: delay)
                return .text("slow")
            }
            router.get("/quick") { _ in .text("quick") }
        }
    }

    var port: Int { local.server.port }
}
