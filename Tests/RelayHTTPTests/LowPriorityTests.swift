import Foundation
import RelaySync
import RelayTestSupport
import Synchronization
import Testing

@testable import RelayHTTP

/// `ServerConfiguration.lowPriority` on real sockets: requests it names (here, `POST /register`
/// from 127.0.0.2) have their bodies read and dropped, keep their connection usable, and are answered
/// after every other ready connection, a bounded number per loop round, however many are queued.
extension SocketSuite {
    @Suite struct LowPriorityTests {
        /// What the handlers saw, shared with the test.
        final class Tally: Sendable {
            /// Low-priority requests answered so far.
            let flagged = Atomic<Int>(0)
            /// Bodies the flagged handler was given (all must be empty).
            let keptBodyBytes = Atomic<Int>(0)
            /// Opens when the gate handler is running; the gate handler waits on `release`.
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
        }

        static let flooder = "127.0.0.2"

        private func configuration(perRound: Int) -> ServerConfiguration {
            // One loop, so "a round" is one thing the test can reason about.
            var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1)
            configuration.lowPriority = { $0.origin.client == IPAddress(Self.flooder) && $0.path == "/register" }
            configuration.lowPriorityPerRound = perRound
            return configuration
        }

        private func router(_ tally: Tally) -> Router {
            var router = Router()
            router.on(
                .post, "/register",
                immediate: { request in
                    tally.keptBodyBytes.wrappingAdd(request.body.count, ordering: .relaxed)
                    let served = tally.flagged.wrappingAdd(1, ordering: .relaxed).newValue
                    return .text("refused \(served) dropped=\(request.bodyDropped)", status: .tooManyRequests)
                })
            router.post("/echo") { request in
                Response(status: .ok, body: request.body)
            }
            // Holds the loop (a dedicated thread, not the cooperative pool) until the test has queued
            // everything, so that every connection is ready in the same round: no timing involved.
            router.get(
                "/gate",
                immediate: { _ in
                    tally.entered.signal()
                    _ = tally.release.wait(timeout: .now() + 60)
                    return .text("open")
                })
            // A legitimate request that suspends a few times on the loop, as a handler awaiting work does.
            router.get("/legit") { _ in
                let before = tally.flagged.load(ordering: .relaxed)
                for _ in 0..<3 { await Task.yield() }
                return .text("\(before) \(tally.flagged.load(ordering: .relaxed))")
            }
            return router
        }

        private static func post(_ path: String, _ body: String, close: Bool = false) -> String {
            "POST \(path) HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
                + (close ? "Connection: close\r\n" : "") + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }

        @Test func testAFloodOfLowPriorityRequestsDoesNotDelayAnotherClient() async throws {
            let tally = Tally()
            let perRound = 4
            let floodConnections = 8
            let pipelined = 100
            try await withServer(configuration(perRound: perRound), router: router(tally)) { server in
                let port = server.port
                let (legit, answers) = try await onOwnThread {
                    let gate = try RawClient(port: port, receiveTimeout: 60)
                    let flood = try (0..<floodConnections).map { _ in
                        try RawClient(port: port, source: Self.flooder, receiveTimeout: 60)
                    }
                    let other = try RawClient(port: port, receiveTimeout: 60)
                    try gate.send("GET /gate HTTP/1.1\r\nHost: a\r\n\r\n")
                    guard tally.entered.wait(timeout: .now() + 60) == .success else {
                        throw RawClient.SocketFailure(message: "the gate handler never ran")
                    }
                    // The loop is held: every byte below is waiting in the kernel when it resumes.
                    for (index, client) in flood.enumerated() {
                        let junk = (0..<pipelined).map { Self.post("/register", #"{"junk":"\#(index)-\#($0)"}"#) }
                        try client.send(junk.joined())
                    }
                    try other.send("GET /legit HTTP/1.1\r\nHost: a\r\n\r\n")
                    tally.release.signal()
                    #expect(try gate.readResponse().text == "open")
                    let legit = try other.readResponse().text
                    // Every flagged request is answered in turn, on a connection that stays usable.
                    var answers = 0
                    for client in flood {
                        for _ in 0..<pipelined {
                            let response = try client.readResponse()
                            #expect(response.status == 429)
                            #expect(response.text.hasSuffix("dropped=true"), "\(response.text)")
                            answers += 1
                        }
                    }
                    return (legit, answers)
                }
                let seen = legit.split(separator: " ").compactMap { Int($0) }
                #expect(seen.count == 2, "\(legit)")
                // The legitimate request was ready in the same round as the whole flood: it went first,
                // and while it ran at most one round's worth of flagged requests were answered. In
                // arrival order it would have waited for all 800.
                #expect(seen[0] <= perRound, "flagged requests answered before the legitimate one started")
                #expect(seen[1] <= 2 * perRound, "flagged requests answered while it ran")
                #expect(answers == floodConnections * pipelined)
                #expect(tally.flagged.load(ordering: .relaxed) == floodConnections * pipelined)
                #expect(tally.keptBodyBytes.load(ordering: .relaxed) == 0, "a low-priority body reached the handler")
            }
        }

        @Test func testALowPriorityBodyArrivingLaterIsConsumedNotKept() async throws {
            let tally = Tally()
            try await withServer(configuration(perRound: 1), router: router(tally)) { server in
                let port = server.port
                try await onOwnThread {
                    let client = try RawClient(port: port, source: Self.flooder, receiveTimeout: 60)
                    // A large body after its head, in pieces: asked at the head, dropped as it arrives.
                    let body = String(repeating: "x", count: 300_000)
                    try client.send(
                        "POST /register HTTP/1.1\r\nHost: a\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
                    for piece in stride(from: 0, to: body.utf8.count, by: 100_000) {
                        try client.send(Array(body.utf8)[piece..<min(piece + 100_000, body.utf8.count)].map { $0 })
                    }
                    let refused = try client.readResponse()
                    #expect(refused.status == 429)
                    #expect(refused.text.hasSuffix("dropped=true"), "\(refused.text)")
                    // Chunked framing is honoured too.
                    try client.send(
                        "POST /register HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
                    )
                    #expect(try client.readResponse().status == 429)
                    // The connection is still in step: an ordinary request on it is served.
                    try client.send(Self.post("/echo", "still here"))
                    let echoed = try client.readResponse()
                    #expect(echoed.status == 200)
                    #expect(echoed.text == "still here")
                }
                #expect(tally.keptBodyBytes.load(ordering: .relaxed) == 0)
            }
        }

        /// A low-priority request whose client waits for `100 Continue` before sending its body is
        /// answered without it (RFC 9110 §10.1.1): the final status, `Connection: close`, the body never
        /// asked for. A body sent anyway is read and dropped by the lingering close, so the answer is
        /// not lost to a reset. Another client's `Expect` still gets its `100 Continue`.
        @Test func testALowPriorityRequestWaitingForContinueIsAnsweredWithoutIt() async throws {
            let tally = Tally()
            try await withServer(configuration(perRound: 1), router: router(tally)) { server in
                let port = server.port
                // A head that asks to be told to go on before its five bytes of body.
                let waitingHead =
                    "POST /register HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"
                try await onOwnThread {
                    let waiting = try RawClient(port: port, source: Self.flooder, receiveTimeout: 10)
                    try waiting.send(waitingHead)
                    let refused = try waiting.readResponse()
                    #expect(refused.status == 429, "a 100 Continue asked for a body the server drops")
                    #expect(refused.header("connection")?.lowercased() == "close")
                    #expect(refused.text.hasSuffix("dropped=true"), "\(refused.text)")
                    #expect(waiting.isClosedByServer())

                    let late = try RawClient(port: port, source: Self.flooder, receiveTimeout: 10)
                    try late.send(waitingHead)
                    #expect(try late.readResponse().status == 429)
                    // The client sends its body after all (as curl does after a second): no reset.
                    try late.send("hello")
                    #expect(late.isClosedByServer())

                    let other = try RawClient(port: port, receiveTimeout: 10)
                    try other.send(
                        "POST /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
                    #expect(try other.readResponse().status == 100)
                    try other.send("ok")
                    #expect(try other.readResponse().text == "ok")
                }
                #expect(tally.flagged.load(ordering: .relaxed) == 2)
                #expect(tally.keptBodyBytes.load(ordering: .relaxed) == 0)
            }
        }
    }
}

/// Runs blocking socket code on a thread of its own, off the cooperative pool, in the test's own
/// task (a task executor preference), so an `#expect` there is the test's.
private func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(OwnThreadExecutor()) { try body() }
}

/// Runs each job it is given on a new thread.
private final class OwnThreadExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread { job.runSynchronously(on: executor) }.start()
    }
}
