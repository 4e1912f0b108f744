import Foundation
import RelayHTTP
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `H2Session` against a real HTTP/2 server (nginx, h2c with prior knowledge), over a plain
/// blocking socket on a thread of its own.
@Suite(.enabled(if: TLSServer.available)) struct H2SessionNginxTests {
    @Test func requestsConcurrentStreamsAndALargeResponse() async throws {
        let server = try await H2CleartextServer()
        let authority = "127.0.0.1:\(server.port)"
        let port = server.port
        let responses = try await onOwnThread {
            try blockingExchange(
                port: port,
                rounds: [
                    [H2Request(scheme: "http", authority: authority, path: "/")],
                    [
                        H2Request(scheme: "http", authority: authority, path: "/big"),
                        H2Request(scheme: "http", authority: authority, path: "/header", headers: ["X-Probe": "abc"]),
                    ],
                    [H2Request(scheme: "http", authority: authority, path: "/missing")],
                ])
        }
        try #require(responses.count == 4)
        #expect(responses[0].status == 200)
        #expect(responses[0].text == "ok")
        #expect(responses[0].httpVersion == "2")
        #expect(responses[0].headers["server"]?.hasPrefix("nginx") == true)
        #expect(responses[1].status == 200)
        #expect(responses[1].body == server.bigBody)
        #expect(responses[1].headers["content-length"] == "200000")
        #expect(responses[2].status == 204)
        #expect(responses[2].headers["x-echo"] == "abc")
        #expect(responses[3].status == 404)
    }
}

/// Runs `body` on a new thread: blocking socket calls never run on the cooperative pool.
private func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// One connection; each round's requests are submitted together (concurrent streams) and all
/// answered before the next round. Responses in submission order.
private func blockingExchange(port: Int, rounds: [[H2Request]]) throws -> [ClientResponse] {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var timeout = timeval(tv_sec: 30, tv_usec: 0)  // a wedged exchange fails the test, not hangs it
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { throw ClientError.connectFailed("connect") }
    let session = try H2Session()
    var results: [ClientResponse] = []
    var output: [UInt8] = []
    var events: [H2Event] = []
    var input = [UInt8](repeating: 0, count: 16_384)
    for round in rounds {
        let ids = try round.map { try session.submit($0) }
        var answered: [Int32: ClientResponse] = [:]
        while answered.count < ids.count {
            output.removeAll(keepingCapacity: true)
            session.takeOutput(into: &output)
            var sent = 0
            while sent < output.count {
                let count = output.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, 0) }
                guard count > 0 else { throw ClientError.transport("send") }
                sent += count
            }
            let count = input.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw ClientError.transport("recv \(count) errno \(errno)") }
            try input.withUnsafeBytes { try session.receive(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            session.takeEvents(into: &events)
            for event in events {
                switch event {
                case .complete(let id, let response): answered[id] = response
                case .reset, .failed, .goAway: throw ClientError.transport("unexpected \(event)")
                case .head: break
                }
            }
            events.removeAll()
        }
        results += ids.map { answered[$0]! }
    }
    session.goAway()
    output.removeAll()
    session.takeOutput(into: &output)
    _ = output.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    return results
}
