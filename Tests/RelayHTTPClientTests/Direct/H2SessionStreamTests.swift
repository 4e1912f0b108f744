import CNghttp2
import RelayHTTP
import Testing

/// `H2Session`'s stream and connection rules against an nghttp2 server session in memory:
/// limits, GOAWAY, resets, PING, cancellation, and a peer that sends garbage.
@Suite struct H2SessionStreamTests {
    @Test func thePeersConcurrencyLimitIsHonoured() throws {
        let pair = try H2Pair(server: FakeH2Server(settings: [(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 2)]))
        #expect(pair.client.availableStreams == 2)
        let first = try pair.client.submit(H2Request(authority: "example.com", path: "/1"))
        _ = try pair.client.submit(H2Request(authority: "example.com", path: "/2"))
        #expect(pair.client.availableStreams == 0)
        #expect(throws: ClientError.self) { try pair.client.submit(H2Request(authority: "example.com", path: "/3")) }
        try pair.exchange()
        #expect(pair.server.requests.count == 2)
        pair.server.respond(first, body: [1])
        try pair.exchange()
        #expect(pair.response(first) != nil)
        #expect(pair.client.availableStreams == 1)
        let third = try pair.client.submit(H2Request(authority: "example.com", path: "/3"))
        try pair.exchange()
        #expect(pair.server.requests[third]?.field(":path") == "/3")
    }

    @Test func streamsAboveGoAwaysLastStreamAreRetryable() throws {
        let pair = try H2Pair()
        let ids = try (0..<3).map { _ in try pair.client.submit(H2Request(authority: "example.com")) }
        try pair.exchange()
        pair.server.goAway(lastStreamID: ids[0])
        pair.server.respond(ids[0], body: Array("done".utf8))
        try pair.exchange()
        #expect(pair.response(ids[0])?.text == "done")
        var retryable: [Int32] = []
        var goAways: [Int32] = []
        for event in pair.events {
            switch event {
            case .reset(let stream, let code, true) where code == NGHTTP2_REFUSED_STREAM.rawValue:
                retryable.append(stream)
            case .goAway(let last, _): goAways.append(last)
            default: break
            }
        }
        #expect(retryable == Array(ids[1...]))
        #expect(goAways == [ids[0]])
        #expect(pair.client.availableStreams == 0)
        #expect(throws: ClientError.self) { try pair.client.submit(H2Request(authority: "example.com")) }
        #expect(!pair.client.isAlive)  // nothing left to finish: the caller closes the connection
    }

    @Test func refusedStreamIsRetryableAndOtherResetsAreNot() throws {
        let pair = try H2Pair()
        let refused = try pair.client.submit(H2Request(authority: "example.com"))
        let broken = try pair.client.submit(H2Request(authority: "example.com"))
        try pair.exchange()
        pair.server.reset(refused, code: NGHTTP2_REFUSED_STREAM)
        pair.server.reset(broken, code: NGHTTP2_INTERNAL_ERROR)
        try pair.exchange()
        #expect(pair.events.count == 2)
        guard case .reset(refused, NGHTTP2_REFUSED_STREAM.rawValue, true) = pair.events[0],
            case .reset(broken, NGHTTP2_INTERNAL_ERROR.rawValue, false) = pair.events[1]
        else {
            Issue.record("unexpected events \(pair.events)")
            return
        }
        #expect(pair.client.isAlive)
    }

    @Test func aResponseOverItsLimitFailsThatStreamOnly() throws {
        let pair = try H2Pair()
        pair.server.onRequest = { server, stream, request in
            server.respond(stream, body: h2TestBody(request.field(":path") == "/big" ? 50_000 : 9_000, seed: 3))
        }
        let big = try pair.client.submit(H2Request(authority: "example.com", path: "/big", maxResponseBytes: 10_000))
        let small = try pair.client.submit(
            H2Request(authority: "example.com", path: "/small", maxResponseBytes: 10_000))
        try pair.exchange()
        var failed: [Int32: ClientError] = [:]
        for case .failed(let stream, let error) in pair.events { failed[stream] = error }
        #expect(failed == [big: .responseTooLarge(limit: 10_000)])
        #expect(pair.clientResets == [big: NGHTTP2_CANCEL.rawValue])
        #expect(pair.response(big) == nil)
        #expect(pair.response(small)?.body == h2TestBody(9_000, seed: 3))
        // The connection lives on.
        let after = try pair.client.submit(H2Request(authority: "example.com", path: "/small"))
        try pair.exchange()
        #expect(pair.response(after) != nil)
    }

    @Test func headerBytesCountTowardsTheLimit() throws {
        let pair = try H2Pair(configuration: .init(maxResponseBytes: 2_000))
        pair.server.onRequest = { server, stream, _ in
            server.respond(stream, fields: [("x-large", String(repeating: "h", count: 3_000))])
        }
        let id = try pair.client.submit(H2Request(authority: "example.com"))
        try pair.exchange()
        guard case .failed(id, .responseTooLarge(limit: 2_000)) = pair.events.first, pair.events.count == 1 else {
            Issue.record("unexpected events \(pair.events)")
            return
        }
        #expect(pair.clientResets == [id: NGHTTP2_CANCEL.rawValue])
    }

    @Test func pingIsAnswered() throws {
        let pair = try H2Pair()
        pair.server.ping()
        pair.server.ping()
        try pair.exchange()
        #expect(pair.server.pingAcks == 2)
        #expect(pair.events.isEmpty)
    }

    @Test func aCancelledStreamIsResetAndReportsNothing() throws {
        let pair = try H2Pair(server: FakeH2Server(settings: [(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100)]))
        let id = try pair.client.submit(H2Request(authority: "example.com"))
        try pair.exchange()
        pair.client.cancel(stream: id)
        try pair.exchange()
        #expect(pair.server.resets[id] == NGHTTP2_CANCEL.rawValue)
        #expect(pair.clientResets == [id: NGHTTP2_CANCEL.rawValue])
        pair.server.respond(id, body: [1])  // too late: the server's stream is gone; nothing must surface
        try pair.exchange()
        #expect(pair.events.isEmpty)
        #expect(pair.client.availableStreams == 100)
    }

    @Test func goAwayLetsOpenStreamsFinishThenTheSessionIsDone() throws {
        let pair = try H2Pair()
        let id = try pair.client.submit(H2Request(authority: "example.com"))
        try pair.exchange()
        pair.client.goAway()
        #expect(pair.client.availableStreams == 0)
        #expect(throws: ClientError.self) { try pair.client.submit(H2Request(authority: "example.com")) }
        try pair.exchange()
        #expect(pair.serverFrameTypes.isEmpty == false)
        #expect(pair.client.isAlive)
        pair.server.respond(id, body: Array("last".utf8))
        try pair.exchange()
        #expect(pair.response(id)?.text == "last")
        #expect(!pair.client.isAlive)
    }

    @Test(arguments: [
        // An HTTP/1.1 answer where frames were expected: a frame length of 4.7 MB.
        Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8),
        // A HEADERS frame on stream 1 whose block is not HPACK (index 0 is invalid, RFC 7541 §6.1).
        [0, 0, 4, 0x1, 0x4, 0, 0, 0, 1, 0x80, 0x80, 0x80, 0x80],
        // DATA on stream 0.
        [0, 0, 1, 0x0, 0x0, 0, 0, 0, 0, 0x41],
    ])
    func garbageFromThePeerKillsTheSessionCleanly(garbage: [UInt8]) throws {
        let pair = try H2Pair()
        let id = try pair.client.submit(H2Request(authority: "example.com"))
        try pair.exchange()
        #expect(throws: ClientError.self) { try pair.feed(garbage) }
        do {
            try pair.feed(garbage)
            Issue.record("a dead session took more bytes")
        } catch let error as ClientError {
            guard case .transport = error else { throw error }
        }
        #expect(!pair.client.isAlive)
        #expect(pair.client.availableStreams == 0)
        #expect(throws: ClientError.self) { try pair.client.submit(H2Request(authority: "example.com")) }
        var output: [UInt8] = []
        pair.client.takeOutput(into: &output)
        #expect(output.count >= 9 && output[3] == 0x7)  // GOAWAY tells the peer why
        #expect(pair.response(id) == nil)
    }
}
