import Foundation
import RelayHTTP
import RelayJSON
import Testing

/// CloudKit misbehaving under a running relay (the standalone emulator's fault injection): each
/// failure becomes the documented tool error, and the same grant works again once CloudKit does.
extension AcceptanceSuite {
    @Suite(.timeLimit(.minutes(10))) struct UpstreamFaultTests {
        @Test func testCloudKitFailuresBecomeToolErrorsAndTheGrantRecovers() async throws {
            let fixture = try await RelayFixture(settings: ["RELAY_CLOUDKIT_TIMEOUT": "1"])
            defer { fixture.remove() }
            let (http, emulator) = (fixture.http, fixture.emulator)
            let relay = try await fixture.start()
            let (client, tokens) = try await RelayClient.connected(
                http: http, appleID: "erin@example.com", at: relay.base)
            func getMe() async throws -> ToolOutcome {
                try await client.callTool("get_me", access: tokens.access, at: relay.base)
            }
            func recovers(_ fault: String) async throws {
                try await emulator.control("faults/clear", [:])
                let outcome = try await getMe()
                #expect(outcome.isResult, "after \(fault): \(outcome)")
            }
            expectResult(try await getMe())

            // 503 TRY_AGAIN_LATER on every attempt (reads are retried three times).
            try await emulator.control("faults", ["status": 503, "count": 5])
            #expect(try await getMe().toolErrorCode == "UPSTREAM_UNAVAILABLE")
            try await recovers("503")

            // 503 with an HTML body (a proxy's error page, not CloudKit JSON).
            try await emulator.control("faults", ["status": 503, "body": "html", "count": 5])
            #expect(try await getMe().toolErrorCode == "UPSTREAM_UNAVAILABLE")
            try await recovers("503 html")

            // 429 THROTTLED with a retryAfter longer than the relay waits: the client is told when to retry.
            try await emulator.control(
                "faults", ["status": 429, "serverErrorCode": "THROTTLED", "retryAfter": 7, "count": 5])
            #expect(try await getMe() == .toolError(code: "RATE_LIMITED", retryAfter: 7))
            try await recovers("429")

            // A short retryAfter is waited out inside the call: the client never sees it.
            try await emulator.control(
                "faults", ["status": 429, "serverErrorCode": "THROTTLED", "retryAfter": 1, "count": 1])
            expectResult(try await getMe())
            let served = try await emulator.stats()["faultsServed"]?.intValue ?? 0
            #expect(served == 3 + 3 + 1 + 1, "every injected fault that was meant to be met was met")

            // A write is not retried: one 503 on records/modify fails the add, and nothing is written twice.
            try await emulator.control("faults", ["status": 503, "count": 1, "operations": ["records/modify"]])
            let add = try await client.callTool(
                "add_todo", ["title": "during an outage"], access: tokens.access, at: relay.base)
            #expect(add.toolErrorCode == "UPSTREAM_UNAVAILABLE")
            let added = try await client.callTool(
                "add_todo", ["title": "after it"], access: tokens.access, at: relay.base)
            #expect(added.isResult, "\(added)")
            let listed = try await client.callTool(
                "list_todos", ["status": "all"], access: tokens.access, at: relay.base)
            guard case .result(let json) = listed else {
                Issue.record("\(listed)")
                return
            }
            #expect(json["items"]?.arrayValue?.compactMap { $0["title"]?.stringValue } == ["after it"])
        }

        /// CloudKit slower than `RELAY_CLOUDKIT_TIMEOUT`: the call fails in bounded time, and the grant
        /// survives in both rotation modes. CloudKit carries the timed-out request out and rotates the
        /// token; the relay keeps listening past the timeout (`LateAnswer`) and saves the token of the
        /// late answer, which with strict rotation is the only live one.
        @Test func testTimeoutsFailInBoundedTimeAndCostNoSession() async throws {
            let fixture = try await RelayFixture(rotation: "keep", settings: ["RELAY_CLOUDKIT_TIMEOUT": "1"])
            defer { fixture.remove() }
            let (http, emulator) = (fixture.http, fixture.emulator)
            let relay = try await fixture.start()
            let (client, tokens) = try await RelayClient.connected(
                http: http, appleID: "frank@example.com", at: relay.base)

            // Old tokens stay valid (Apple's observed behaviour): the timeout is an error, then all is well.
            try await emulator.control("latency", ["milliseconds": 2500])
            let started = ContinuousClock.now
            let slow = try await client.callTool("get_me", access: tokens.access, at: relay.base)
            #expect(slow.toolErrorCode == "UPSTREAM_UNAVAILABLE")
            #expect(ContinuousClock.now - started < .seconds(3), "one attempt past the timeout, not retried")
            try await emulator.control("latency", ["milliseconds": 0])
            let recovered = try await client.callTool("get_me", access: tokens.access, at: relay.base)
            #expect(recovered.isResult, "\(recovered)")

            // Old tokens die at once (the documented behaviour): CloudKit carries the timed-out request
            // out 2.5 s after it was sent and rotates the token. The relay answered "unavailable" at
            // 1 s but kept listening: the late answer's token is saved, and the next call (which waits
            // for that save in the grant's turn) uses it. No 401, no reconnection.
            try await emulator.control("settings", ["rotation": "invalidate"])
            try await emulator.control("latency", ["milliseconds": 2500])
            let timedOut = ContinuousClock.now
            #expect(
                try await client.callTool("get_me", access: tokens.access, at: relay.base).toolErrorCode
                    == "UPSTREAM_UNAVAILABLE")
            #expect(ContinuousClock.now - timedOut < .seconds(2), "the tool call still answers on time")
            try await emulator.control("latency", ["milliseconds": 0])
            for _ in 0..<3 {
                let after = try await client.callTool("get_me", access: tokens.access, at: relay.base)
                #expect(after.isResult, "the late answer's token was saved: \(after)")
            }
            #expect(relay.child.text.contains("cloudkit.late_answer_saved"), "the save is logged")
        }
    }
}
