import Foundation
import Testing

@testable import RelayHTTP

/// Requests that arrive too slowly, on a real socket: the head's and the body's total deadlines
/// and the body's minimum rate cut them with 408 however steadily their bytes trickle in, and a
/// body sent at an honest pace is not cut. Each slow client keeps sending until it is answered (or
/// for several times the deadline), so a deadline the bytes extended shows as no answer.
extension SocketSuite {
    @Suite struct SlowRequestTests {
        @Test func testTheHeadOfAKeptAliveConnectionsNextRequestHasATotalDeadline() async throws {
            try await withEventServer {
                $0.headerReadTimeout = .milliseconds(1000)
            } run: { server, events in
                let client = try RawClient(port: server.port)
                try client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(try client.readResponse().status == 200)
                try client.send("GET /hello HTTP/1.1\r\nHost: a\r\n")
                // A header line byte every 100 ms: never idle, never finished.
                let outcome = client.trickle(Array("x".utf8), every: .milliseconds(100), giveUp: 8)
                #expect(outcome.status == 408, "no answer after \(outcome.elapsed) s of trickling")
                #expect(outcome.elapsed < 4, "the deadline moved with the bytes")
                #expect(outcome.sent > 5)
                #expect(client.isClosedByServer())
                #expect(events.all == [.timedOut(.head)])
            }
        }

        @Test func testABodyFastEnoughForTheIdleTimerStillEndsAtTheBodyDeadline() async throws {
            try await withEventServer {
                $0.bodyTimeout = .milliseconds(1500)
                $0.bodyIdleTimeout = .milliseconds(1000)
                $0.bodyMinimumBytesPerSecond = 0
            } run: { server, events in
                let client = try RawClient(port: server.port)
                try client.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000\r\n\r\n")
                let outcome = client.trickle(Array("x".utf8), every: .milliseconds(100), giveUp: 10)
                #expect(outcome.status == 408, "no answer after \(outcome.elapsed) s of trickling")
                #expect(outcome.elapsed > 1.2, "cut before the deadline")
                #expect(outcome.elapsed < 5, "the deadline moved with the bytes")
                #expect(client.isClosedByServer())
                #expect(events.all == [.timedOut(.bodyDeadline)])
            }
        }

        @Test func testABodySlowerThanTheMinimumRateIsCutAfterTheGracePeriod() async throws {
            try await withEventServer {
                $0.bodyMinimumBytesPerSecond = 1000
                $0.bodyRateGrace = .milliseconds(1000)
                $0.bodyIdleTimeout = .milliseconds(30_000)
                $0.bodyTimeout = .milliseconds(60_000)
            } run: { server, events in
                let client = try RawClient(port: server.port)
                try client.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000\r\n\r\n")
                // 100 bytes a second, a tenth of the minimum: allowed 1 s + 0.1 s per second sent.
                let outcome = client.trickle(
                    Array(repeating: UInt8(ascii: "x"), count: 10), every: .milliseconds(100), giveUp: 10)
                #expect(outcome.status == 408, "no answer after \(outcome.elapsed) s of trickling")
                #expect(outcome.elapsed > 1, "cut within the grace period")
                #expect(outcome.elapsed < 5)
                #expect(client.isClosedByServer())
                #expect(events.all == [.timedOut(.bodyRate)])
            }
        }

        @Test func testABodyAboveTheMinimumRateIsReceivedWhole() async throws {
            try await withEventServer {
                $0.bodyMinimumBytesPerSecond = 1000
                $0.bodyRateGrace = .milliseconds(500)
            } run: { server, events in
                let client = try RawClient(port: server.port)
                let body = [UInt8](repeating: UInt8(ascii: "b"), count: 4000)
                try client.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: \(body.count)\r\n\r\n")
                // 2,000 bytes a second, twice the minimum, for two seconds: four times the grace period.
                for start in stride(from: 0, to: body.count, by: 200) {
                    try client.send(Array(body[start..<start + 200]))
                    try await Task.sleep(for: .milliseconds(100))
                }
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.body == body)
                #expect(events.all == [])
            }
        }

        @Test func testAChunkedBodyTrickledBelowTheRateIsCutToo() async throws {
            try await withEventServer {
                $0.bodyMinimumBytesPerSecond = 1000
                $0.bodyRateGrace = .milliseconds(1000)
            } run: { server, events in
                let client = try RawClient(port: server.port)
                try client.send("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
                let outcome = client.trickle(Array("1\r\nx\r\n".utf8), every: .milliseconds(100), giveUp: 10)
                #expect(outcome.status == 408, "no answer after \(outcome.elapsed) s of trickling")
                #expect(outcome.elapsed < 5)
                #expect(events.all == [.timedOut(.bodyRate)])
            }
        }
    }
}
