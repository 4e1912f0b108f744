import RelayHTTP
import Testing

/// Seeded random and damaged ciphertext: the session must never crash, never complete a handshake
/// it should not, never yield plaintext from garbage; each input ends in "need more" or `.tls`.
@Suite(.enabled(if: TLSServer.available, "needs nginx and openssl"))
struct TLSClientFuzzTests {
    /// SplitMix64: a fixed seed gives the same inputs on every run.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// How a handshake fed `flight` in random pieces ended.
    enum Ending: Sendable { case waiting, failed, completed, otherError }

    static func feed(_ flight: [UInt8], to session: TLSClientSession, using random: inout SeededGenerator) -> Ending {
        var offset = 0
        var scratch: [UInt8] = []
        do {
            guard try !session.handshake() else { return .completed }
            session.takeOutput(into: &scratch)
            while offset < flight.count {
                let piece = min(flight.count - offset, Int.random(in: 1...600, using: &random))
                flight[offset..<(offset + piece)].withUnsafeBytes { session.receive($0) }
                offset += piece
                if try session.handshake() { return .completed }
                session.takeOutput(into: &scratch)
            }
            return .waiting
        } catch ClientError.tls {
            return .failed
        } catch {
            return .otherError
        }
    }

    @Test func randomServerFlights() async throws {
        let endings = try await onOwnThread {
            var random = SeededGenerator(state: 17)
            let context = try TLSClientContext(alpn: ["h2", "http/1.1"])
            var endings: [Ending] = []
            for round in 0..<400 {
                var flight = (0..<Int.random(in: 1...3000, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
                if round % 2 == 0 {  // a plausible handshake record header in front, so parsing goes deeper
                    flight.insert(
                        contentsOf: [
                            0x16, 0x03, 0x03, UInt8(flight.count >> 8 & 0x3F), UInt8(flight.count & 0xFF), 0x02,
                        ], at: 0)
                }
                let session = try TLSClientSession(context: context, serverName: "localhost", port: 443)
                endings.append(Self.feed(flight, to: session, using: &random))
            }
            return endings
        }
        #expect(!endings.contains(.completed))
        #expect(!endings.contains(.otherError))
        #expect(endings.filter { $0 == .failed }.count > 300)
    }

    /// A real server's flight, captured, then replayed truncated or with bytes changed to fresh
    /// sessions: it answers another ClientHello, so it must never complete a handshake.
    @Test(arguments: ["TLSv1.2", "TLSv1.3"])
    func aReplayedOrDamagedRealFlightNeverCompletes(version: String) async throws {
        let server = try await TLSServer(protocols: version)
        let (port, caFile) = (server.port, server.certificate)
        let (endings, wholeReplays) = try await onOwnThread {
            let context = try TLSClientContext(caFile: caFile, alpn: ["h2"])
            let driver = try TLSSocketDriver(
                port: port, session: TLSClientSession(context: context, serverName: "localhost", port: port))
            try driver.handshake()
            let flight = driver.received
            var random = SeededGenerator(state: 1717)
            // Not the capturing context: it keeps that connection's session, which would make the
            // fresh sessions offer resumption. These never complete, so they keep nothing.
            let fuzzContext = try TLSClientContext(caFile: caFile, alpn: ["h2"])
            var endings: [Ending] = []
            var wholeReplays: [Ending] = []
            for round in 0..<300 {
                var damaged = flight
                if round % 3 == 0 {
                    damaged.removeLast(Int.random(in: 1..<flight.count, using: &random))
                } else if round % 3 == 1 {
                    for _ in 0..<Int.random(in: 1...4, using: &random) {
                        damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(
                            in: 0...255, using: &random)
                    }
                }  // else replayed whole
                let fresh = try TLSClientSession(context: fuzzContext, serverName: "localhost", port: port)
                let ending = Self.feed(damaged, to: fresh, using: &random)
                endings.append(ending)
                if round % 3 == 2 { wholeReplays.append(ending) }
            }
            return (endings, wholeReplays)
        }
        #expect(!endings.contains(.completed))
        #expect(!endings.contains(.otherError))
        #expect(wholeReplays.count == 100 && wholeReplays.allSatisfy { $0 == .failed })
    }

    /// After a real handshake: random records never decrypt into plaintext.
    @Test func randomRecordsAfterTheHandshake() async throws {
        let server = try await TLSServer()
        let (port, caFile) = (server.port, server.certificate)
        let (plaintextBytes, failures, others) = try await onOwnThread {
            let context = try TLSClientContext(caFile: caFile, alpn: ["h2"])
            var random = SeededGenerator(state: 99)
            var plaintextBytes = 0
            var failures = 0
            var others = 0
            for round in 0..<12 {
                let driver = try TLSSocketDriver(
                    port: port, session: TLSClientSession(context: context, serverName: "localhost", port: port))
                try driver.handshake()
                let length = Int.random(in: 1...2000, using: &random)
                var record = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
                if round % 2 == 0 {  // application data with a consistent header: fails on its tag
                    record.insert(contentsOf: [0x17, 0x03, 0x03, UInt8(length >> 8), UInt8(length & 0xFF)], at: 0)
                }
                record.withUnsafeBytes { driver.session.receive($0) }
                var plaintext: [UInt8] = []
                do {
                    _ = try driver.session.read(into: &plaintext)
                } catch ClientError.tls {
                    failures += 1
                } catch {
                    others += 1
                }
                plaintextBytes += plaintext.count
            }
            return (plaintextBytes, failures, others)
        }
        #expect(plaintextBytes == 0)
        #expect(failures >= 6)  // at least every record with a consistent header
        #expect(others == 0)
    }
}
