import RelayHTTP
import Testing

/// An `H2Session` wired to a `FakeH2Server` in memory: `exchange()` carries bytes both ways until
/// neither side has anything to send, and keeps the events and the raw server bytes (to check
/// which frames went over the wire).
final class H2Pair {
    let client: H2Session
    let server: FakeH2Server
    var events: [H2Event] = []
    /// Every byte the server sent, in order.
    var serverBytes: [UInt8] = []
    /// Every byte the client sent, in order (the 24-byte connection preface first).
    var clientBytes: [UInt8] = []

    init(server: FakeH2Server = FakeH2Server(), configuration: H2Session.Configuration = .init()) throws {
        self.server = server
        client = try H2Session(configuration: configuration)
        try exchange()
    }

    /// Carries bytes until both sides are quiet (bounded: a loop that never quiets fails).
    func exchange() throws {
        for _ in 0..<10_000 {
            var toServer: [UInt8] = []
            client.takeOutput(into: &toServer)
            clientBytes += toServer
            if !toServer.isEmpty { precondition(server.receive(toServer) >= 0, "the test server failed") }
            let toClient = server.takeOutput()
            serverBytes += toClient
            try feed(toClient)
            if toServer.isEmpty && toClient.isEmpty { return }
        }
        Issue.record("the two sessions never went quiet")
    }

    /// Raw bytes to the client as if the server sent them; events are kept.
    func feed(_ bytes: [UInt8]) throws {
        defer { client.takeEvents(into: &events) }
        try bytes.withUnsafeBytes { try client.receive($0) }
    }

    /// The response completed on `stream`, if any.
    func response(_ stream: Int32) -> ClientResponse? {
        for case .complete(stream, let response) in events { return response }
        return nil
    }

    /// The frame types the server sent, in order.
    var serverFrameTypes: [UInt8] { h2Frames(serverBytes).map(\.type) }

    /// The RST_STREAM frames the client sent: stream and error code.
    var clientResets: [Int32: UInt32] {
        var resets: [Int32: UInt32] = [:]
        for frame in h2Frames(Array(clientBytes.dropFirst(24))) where frame.type == 0x3 {
            resets[frame.stream] = frame.payload.reduce(0) { $0 << 8 | UInt32($1) }
        }
        return resets
    }
}

/// The frames in `bytes` (RFC 9113 §4.1: 24-bit length, type, flags, 31-bit stream id, payload).
func h2Frames(_ bytes: [UInt8]) -> [(type: UInt8, stream: Int32, payload: ArraySlice<UInt8>)] {
    var frames: [(type: UInt8, stream: Int32, payload: ArraySlice<UInt8>)] = []
    var index = 0
    while index + 9 <= bytes.count {
        let length = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
        let stream = bytes[(index + 5)..<(index + 9)].reduce(Int32(0)) { $0 << 8 | Int32($1) } & 0x7FFF_FFFF
        frames.append((bytes[index + 3], stream, bytes[(index + 9)..<min(bytes.count, index + 9 + length)]))
        index += 9 + length
    }
    return frames
}

/// A body whose bytes differ from stream to stream and position to position.
func h2TestBody(_ count: Int, seed: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ $0 >> 8) }
}
