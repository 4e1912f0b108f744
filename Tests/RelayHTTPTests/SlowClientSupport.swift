import Foundation
import RelayHTTP
import RelaySync
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Collects what a server reports through `ServerConfiguration.onEvent`.
final class ServerEvents: Sendable {
    private let events = Locked<[ServerEvent]>([])

    var all: [ServerEvent] { events.withLock { $0 } }

    /// The observer to put in a configuration.
    var record: @Sendable (ServerEvent) -> Void { { [events] event in events.withLock { $0.append(event) } } }

    /// A loopback server configuration on port 0 with two loops, reporting to a new `ServerEvents`,
    /// after `adjust`.
    static func configuration(_ adjust: (inout ServerConfiguration) -> Void) -> (ServerConfiguration, ServerEvents) {
        let events = ServerEvents()
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 2)
        configuration.onEvent = events.record
        adjust(&configuration)
        return (configuration, events)
    }
}

/// What a trickling client saw.
struct TrickleOutcome {
    /// The status the server answered with, nil when it had not answered when the client gave up.
    var status: Int?
    /// Seconds from the first trickled byte to the answer (or to giving up).
    var elapsed: Double
    /// Bytes the client managed to send.
    var sent: Int
}

extension RawClient {
    /// Sends `chunk` every `interval` until the server answers (or closes), or `giveUp` seconds pass,
    /// so a deadline that the bytes extended would show as no answer at all.
    func trickle(_ chunk: [UInt8], every interval: Duration, giveUp: Double) -> TrickleOutcome {
        let started = Date()
        var sent = 0
        let milliseconds = Int32(
            interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        var answered = false
        while !answered && Date().timeIntervalSince(started) < giveUp {
            var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if Glibc.poll(&poll, 1, milliseconds) > 0 || (try? send(chunk)) == nil {
                answered = true
            } else {
                sent += chunk.count
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        let status = answered ? try? readResponse().status : nil
        return TrickleOutcome(status: status, elapsed: elapsed, sent: sent)
    }
}

/// Runs `body` with a server on port 0 serving `testRouter()`, configured by `adjust` (as
/// `ServerEvents.configuration` does), and the events it reports; stops the server afterwards.
func withEventServer(
    _ adjust: (inout ServerConfiguration) -> Void, run body: (Server, ServerEvents) async throws -> Void
) async throws {
    let (configuration, events) = ServerEvents.configuration(adjust)
    try await withServer(configuration, router: testRouter()) { server in try await body(server, events) }
}

extension RawClient {
    /// Sends `GET path` and expects it answered with 200 on this connection.
    func expectServed(_ path: String = "/hello", sourceLocation: SourceLocation = #_sourceLocation) throws {
        try send("GET \(path) HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try readResponse().status == 200, sourceLocation: sourceLocation)
    }
}
