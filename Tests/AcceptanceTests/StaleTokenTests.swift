import Foundation
import RelayHTTP
import RelayTestSupport
import Testing

/// A grant ends only when its newest CloudKit token is dead. Two instances on one DynamoDB table
/// and KMS key (moto, each instance through its own fault-proxy route), the emulator killing a
/// rotated token at once (Apple's documented rule): an instance that cannot save a rotated token
/// holds the only live one, and the other instance, refused with the store's older token, must
/// not end the grant: not while the store is unreadable, not while the grant's refusal is younger
/// than the grace, and the held token reaches the store as soon as the store answers again.
extension AcceptanceSuite {
    @Suite(.timeLimit(.minutes(10))) struct StaleTokenTests {
        static let grace = 8

        @Test func testARefusedStaleTokenNeverEndsAGrantWhileAnotherInstanceHoldsANewerOne() async throws {
            let http = try HTTPClient.forTests()
            defer { http.shutdown() }
            let aws = try await FaultyAWS(http: http)
            let emulator = try await EmulatorProcess(http: http)
            var settings = aws.relaySettings
            settings["RELAY_OAUTH_VALIDATION_CACHE_TTL"] = "60"
            settings["RELAY_CLOUDKIT_SESSION_END_GRACE"] = String(Self.grace)
            let setup = try await RelaySetup(
                emulator: emulator, settings: settings, environment: MotoProcess.credentials)
            defer { setup.remove() }
            let a = try await setup.start(http: http, extra: aws.endpoints(for: "a"))
            let b = try await setup.start(http: http, extra: aws.endpoints(for: "b"))
            let (client, tokens) = try await RelayClient.connected(http: http, appleID: "stale@example.com", at: a.base)
            func call(_ relay: RelayInstance) async throws -> ToolOutcome {
                try await client.callTool("get_me", access: tokens.access, at: relay.base)
            }
            // Both instances validate the token now: their caches carry the calls through the outages.
            for relay in [a, b, a] { expectResult(try await call(relay)) }

            // A partition: A cannot reach the store, B can. A's call rotates the token and keeps the
            // successor in memory; B, refused with the store's copy, answers "unavailable", never 401.
            try await aws.set(["store-a", "kms-a"], .refuse)
            expectResult(try await call(a))
            for _ in 0..<2 {
                #expect(try await call(b).toolErrorCode == "UPSTREAM_UNAVAILABLE", "B ended a grant A holds")
            }
            expectResult(try await call(a), "the grant must still work where its newest token is")
            let unsaved = try await a.metric("relay_cloudkit_unsaved_tokens")
            #expect(unsaved > 0)
            // The partition heals: A writes the held token at once, not at the grant's next call.
            try await aws.set(["store-a", "kms-a"], .pass)
            try await waitUntil("A writes its unsaved token once the store answers", timeout: .seconds(10)) {
                try await a.metric("relay_cloudkit_unsaved_tokens") == 0
            }
            expectResult(try await call(b), "B follows the token A wrote")

            // The whole store away: B (whose call rotated last) keeps its rotation in memory; A cannot
            // read the store and must not end the grant on a refusal it cannot judge.
            try await aws.set(["store-a", "kms-a", "store-b", "kms-b"], .refuse)
            expectResult(try await call(b))
            #expect(try await call(a).toolErrorCode == "UPSTREAM_UNAVAILABLE")
            try await aws.set(["store-a", "kms-a", "store-b", "kms-b"], .pass)
            try await waitUntil("B writes its unsaved token once the store answers", timeout: .seconds(10)) {
                try await b.metric("relay_cloudkit_unsaved_tokens") == 0
            }
            expectResult(try await call(a))
            expectResult(try await call(b))

            // A session that really ended makes its grant wait for a sign-in (issue 39; it used to end
            // the grant), once the grace has passed.
            try await emulator.control("sessions/expire", [:])
            let ended = ContinuousClock.now
            #expect(try await call(b).toolErrorCode == "UPSTREAM_UNAVAILABLE")
            try await waitUntil("the ended session makes its grant wait", timeout: .seconds(Self.grace + 20)) {
                try await call(a).toolErrorCode == "SIGN_IN_REQUIRED"
            }
            #expect(ContinuousClock.now - ended >= .seconds(Self.grace - 1))
            #expect(try await call(b).toolErrorCode == "SIGN_IN_REQUIRED")
            #expect((a.child.text + b.child.text).contains("cloudkit.session_end_pending"))
            // Every error line of both instances (outages, unsaved tokens) says why.
            let errors = (a.child.text + "\n" + b.child.text).split(separator: "\n").filter {
                $0.contains(#""level":"error""#)
            }
            #expect(!errors.isEmpty)
            for line in errors { #expect(line.contains(#""reason":""#), "an error line without a reason: \(line)") }
        }
    }
}
