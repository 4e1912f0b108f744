import Foundation
import RelayHTTP
import Testing

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

@Suite struct ClientLimitsTests {

    @Test func totalTimeoutAbortsASlowResponse() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in
            router.get("/slow") { _ in
                try await Task.sleep(for: .seconds(60))
                return .text("late")
            }
        }
        await #expect(throws: ClientError.timedOut) {
            try await client.send(ClientRequest(url: server.url("/slow"), timeout: .milliseconds(200)))
        }
    }

    @Test func connectTimeoutAbortsAnUnansweredConnect() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let listener = try StalledListener()
        let started = ContinuousClock.now
        await #expect(throws: ClientError.timedOut) {
            try await client.send(
                ClientRequest(
                    url: "http://127.0.0.1:\(listener.port)/",
                    connectTimeout: .milliseconds(300), timeout: .seconds(120)))
        }
        // The 120 s total timeout cannot have fired: the connect timeout did. The bound is loose
        // because the whole test process can stall for seconds on a loaded two-core machine.
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test func responseSizeCapApplies() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let big = [UInt8](repeating: UInt8(ascii: "z"), count: 100_000)
        let server = try LocalServer { router in
            router.get("/big") { _ in Response(body: big) }
            router.get("/headers") { _ in
                Response(headers: ["X-Big": String(repeating: "h", count: 6000)], body: Array("small".utf8))
            }
        }
        await #expect(throws: ClientError.responseTooLarge(limit: 10_000)) {
            try await client.send(ClientRequest(url: server.url("/big"), maxResponseBytes: 10_000))
        }
        let fits = try await client.send(ClientRequest(url: server.url("/big"), maxResponseBytes: 200_000))
        #expect(fits.body == big)
        await #expect(throws: ClientError.responseTooLarge(limit: 4000)) {
            try await client.send(ClientRequest(url: server.url("/headers"), maxResponseBytes: 4000))
        }
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in
            router.get("/forever") { _ in
                try await Task.sleep(for: .seconds(60))
                return .text("late")
            }
            router.get("/quick") { _ in .text("quick") }
        }
        let task = Task { try await client.send(ClientRequest(url: server.url("/forever"))) }
        try await waitUntil("one request in flight") { client.statistics.inFlight == 1 }
        let started = ContinuousClock.now
        task.cancel()
        let result = await task.result
        #expect(throws: ClientError.cancelled) { try result.get() }
        // Generous for a loaded machine; without cancellation the answer would take 60 s.
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(client.statistics.inFlight == 0)
        // The aborted connection is not handed out again: the next exchange opens a new one.
        let next = try await client.send(ClientRequest(url: server.url("/quick")))
        #expect(next.status == 200)
        #expect(next.connectionsOpened == 1)
    }

    @Test func alreadyCancelledTaskSendsNothing() async throws {
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        let server = try LocalServer { router in router.get("/") { _ in .text("ok") } }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(ClientRequest(url: server.url("/")))
        }
        let result = await task.result
        #expect(throws: ClientError.cancelled) { try result.get() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(server.hits.load() == 0)
    }
}

/// A listener whose accept queue is full, so further connects get no SYN-ACK and hang.
final class StalledListener {
    let fd: Int32
    let port: Int
    private let fillers: [Int32]

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        listen(fd, 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        var fillers: [Int32] = []
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            fillers.append(filler)
        }
        usleep(100_000)
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.fillers = fillers
    }

    deinit {
        for filler in fillers { close(filler) }
        close(fd)
    }
}

/// A port nothing listens on (bound, read, closed).
func closedPort() throws -> Int {
    let listener = try StalledListener()
    return listener.port
}
