import Foundation
import RelayHTTP
import RelayTestSupport
import Testing

/// Two `mustdo-relay serve` processes behind an imaginary load balancer: one DynamoDB table and
/// one KMS key (moto), the same secrets, one CloudKit emulator whose old token dies the moment it
/// rotates. Every OAuth promise must hold whichever instance a request lands on.
extension AcceptanceSuite {
    @Suite(.timeLimit(.minutes(10))) struct MultiInstanceTests {
        static let grace = 3

        private func cluster() async throws -> TwoInstances {
            try await TwoInstances.start(settings: ["RELAY_OAUTH_REFRESH_GRACE": String(Self.grace)])
        }

        @Test func testCodesRefreshRotationAndReuseDetectionHoldAcrossInstances() async throws {
            let c = try await cluster()
            defer { c.remove() }
            // A code issued by A is redeemed at B.
            let client = try await RelayClient.register(http: c.http, at: c.a.base)
            let (code, verifier) = try await client.connect(appleID: "alice@example.com", at: c.a.base)
            let first = try await client.exchange(code: code, verifier: verifier, at: c.b.base).get()
            let replay = try await client.exchange(code: code, verifier: verifier, at: c.a.base)
            #expect(replay == .failure(.init(status: 400, code: "invalid_grant")), "A redeemed code was accepted twice")

            // The replay revoked that grant everywhere; connect again for the rest.
            let (code2, verifier2) = try await client.connect(appleID: "alice@example.com", at: c.b.base)
            let tokens = try await client.exchange(code: code2, verifier: verifier2, at: c.a.base).get()
            #expect(
                try await client.callTool("get_me", access: first.access, at: c.b.base).httpStatus == 401,
                "a token of the replayed code's grant still works")
            expectResult(try await client.callTool("get_me", access: tokens.access, at: c.b.base))

            // Rotate at A; the same refresh token retried at B within the grace window gets the same pair.
            let rotated = try await client.refresh(tokens.refresh, at: c.a.base).get()
            let rotatedAt = Int(Date().timeIntervalSince1970)
            #expect(rotated != tokens)
            let retried = try await client.refresh(tokens.refresh, at: c.b.base).get()
            #expect(retried == rotated, "a retry within the grace window must return the same pair, not a new branch")
            for base in [c.a.base, c.b.base] {
                expectResult(try await client.callTool("get_me", access: rotated.access, at: base))
            }

            // Outside the grace window, the spent token revokes the grant on every instance.
            while Int(Date().timeIntervalSince1970) <= rotatedAt + Self.grace {
                try await Task.sleep(for: .milliseconds(100))
            }
            let reuse = try await client.refresh(tokens.refresh, at: c.b.base)
            #expect(reuse == .failure(.init(status: 400, code: "invalid_grant")))
            #expect(
                try await client.refresh(rotated.refresh, at: c.a.base)
                    == .failure(.init(status: 400, code: "invalid_grant")),
                "the current refresh token survived reuse detection on the other instance")
            #expect(try await client.callTool("get_me", access: rotated.access, at: c.b.base).httpStatus == 401)
            // A validated this access token a moment ago: its cache may hold it for the validation-cache TTL (5 s).
            let revokedAt = ContinuousClock.now
            try await waitUntil("A still accepts a revoked grant's access token", timeout: .seconds(8)) {
                try await client.callTool("get_me", access: rotated.access, at: c.a.base).httpStatus == 401
            }
            #expect(ContinuousClock.now - revokedAt < .seconds(7))
        }

        @Test func testTwoCallbacksForOnePendingRequestRacingOnTwoInstancesExactlyOneWins() async throws {
            let c = try await cluster()
            defer { c.remove() }
            let client = try await RelayClient.register(http: c.http, at: c.a.base)
            for round in 0..<6 {
                let (first, second) = round % 2 == 0 ? (c.a, c.b) : (c.b, c.a)
                let authorization = try await client.authorize(at: first.base)
                let signInURL = try await client.consent(authorization, at: second.base)
                let query = try await client.signIn(signInURL, appleID: "race\(round)@example.com")
                async let one = client.callback(
                    query, cookie: authorization.cookie, tab: authorization.tab, at: first.base)
                async let two = client.callback(
                    query, cookie: authorization.cookie, tab: authorization.tab, at: second.base)
                let responses = try await [one, two]
                let codes = responses.compactMap { client.code(from: $0, authorization) }
                #expect(codes.count == 1, "round \(round): \(responses.map { ($0.status, $0.headers["location"]) })")
                let loser = responses.first { client.code(from: $0, authorization) == nil }
                #expect(loser?.headers["location"] == "http://127.0.0.1/oauth/apple/callback?failed=already_used")
                guard let code = codes.first else { continue }
                let tokens = try await client.exchange(code: code, verifier: authorization.verifier, at: second.base)
                    .get()
                expectResult(try await client.callTool("get_me", access: tokens.access, at: first.base))
            }
        }

        @Test func testToolCallsAlternatingBetweenInstancesSurviveTokenRotation() async throws {
            let c = try await cluster()
            defer { c.remove() }
            let (client, tokens) = try await RelayClient.connected(
                http: c.http, appleID: "carol@example.com", at: c.a.base)
            for call in 0..<10 {
                let instance = call % 2 == 0 ? c.a : c.b
                let outcome =
                    call % 3 == 0
                    ? try await client.callTool(
                        "add_todo", ["title": .string("alternating \(call)")], access: tokens.access, at: instance.base)
                    : try await client.callTool(
                        "list_todos", ["status": "all"], access: tokens.access, at: instance.base)
                #expect(outcome.isResult, "call \(call) at \(instance.port): \(outcome)")
            }
            let listed = try await client.callTool("list_todos", ["status": "all"], access: tokens.access, at: c.b.base)
            guard case .result(let json) = listed else {
                Issue.record("\(listed)")
                return
            }
            #expect(json["items"]?.arrayValue?.count == 4)
            // Each instance met a token the other had rotated away, and recovered with the stored one.
            let deadA = try await c.a.metric(#"relay_cloudkit_calls_total{outcome="sessionDead"}"#)
            let deadB = try await c.b.metric(#"relay_cloudkit_calls_total{outcome="sessionDead"}"#)
            #expect(deadA + deadB > 0, "the cross-instance retry was never exercised")
        }

        /// Issue 44: an `undo` handle sealed by one instance opens on the other (the key comes from the
        /// secrets both share, nothing is stored), and puts back exactly what the write changed; one
        /// undone twice is refused the second time, and the record stays as the first undo left it.
        @Test func testAnUndoHandleFromOneInstanceWorksOnTheOther() async throws {
            let c = try await cluster()
            defer { c.remove() }
            let (client, tokens) = try await RelayClient.connected(
                http: c.http, appleID: "erin@example.com", at: c.a.base)
            let added = try await client.callTool(
                "add_todo", ["title": "Return the library book"], access: tokens.access, at: c.a.base)
            guard case .result(let addedJSON) = added, let id = addedJSON["todo"]?["id"]?.stringValue,
                let addUndo = addedJSON["undo"]?.stringValue
            else {
                Issue.record("\(added)")
                return
            }
            let completed = try await client.callTool(
                "complete_todo", ["id": .string(id)], access: tokens.access, at: c.a.base)
            guard case .result(let completedJSON) = completed, let completeUndo = completedJSON["undo"]?.stringValue
            else {
                Issue.record("\(completed)")
                return
            }

            // The completion undone on B: the to-do is pending again.
            let undone = try await client.callTool(
                "undo", ["undo": .string(completeUndo)], access: tokens.access, at: c.b.base)
            #expect(undone.isResult, "\(undone)")
            let pending = try await client.callTool(
                "list_todos", ["status": "pending"], access: tokens.access, at: c.b.base)
            guard case .result(let pendingJSON) = pending else {
                Issue.record("\(pending)")
                return
            }
            #expect(pendingJSON["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [id])

            // The add's handle is stale now (the record changed since): refused on A, nothing changed.
            let stale = try await client.callTool(
                "undo", ["undo": .string(addUndo)], access: tokens.access, at: c.a.base)
            guard case .toolError(let code, _) = stale else {
                Issue.record("a stale undo was carried out: \(stale)")
                return
            }
            #expect(code == "CONFLICT")
            // The same completion undone again: its change tag is gone, so it is refused too.
            let again = try await client.callTool(
                "undo", ["undo": .string(completeUndo)], access: tokens.access, at: c.a.base)
            #expect(!again.isResult, "\(again)")
            let still = try await client.callTool(
                "list_todos", ["status": "pending"], access: tokens.access, at: c.a.base)
            guard case .result(let stillJSON) = still else {
                Issue.record("\(still)")
                return
            }
            #expect(stillJSON["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [id])
        }

        @Test func testConcurrentCallsOfOneGrantOnBothInstancesKeepTheGrant() async throws {
            let c = try await cluster()
            defer { c.remove() }
            let (client, tokens) = try await RelayClient.connected(
                http: c.http, appleID: "dave@example.com", at: c.a.base)
            try await c.emulator.control("latency", ["milliseconds": 30])
            for round in 0..<8 {
                async let one = client.callTool("list_todos", ["status": "all"], access: tokens.access, at: c.a.base)
                async let two = client.callTool("get_me", access: tokens.access, at: c.b.base)
                let outcomes = try await [one, two]
                #expect(outcomes.allSatisfy { $0.isResult }, "round \(round): \(outcomes)")
                if !outcomes.allSatisfy(\.isResult) { break }
            }
        }
    }
}

extension AcceptanceSuite.MultiInstanceTests {
    /// A refresh on B while a tool call on A waits for CloudKit: the refresh changes the grant's
    /// version, not its CloudKit token, so the token CloudKit rotates to must still be saved.
    @Test func testARefreshDuringAToolCallKeepsTheRotatedCloudKitToken() async throws {
        let c = try await cluster()
        defer { c.remove() }
        let (client, tokens) = try await RelayClient.connected(http: c.http, appleID: "judy@example.com", at: c.a.base)
        try await c.emulator.control("latency", ["milliseconds": 1500])
        // `requests` counts every request on arrival, these polls included (one each): a jump of
        // more than one means the relay's call arrived and is now held by the latency.
        var seen = try await c.emulator.stats()["requests"]?.intValue ?? 0
        let call = Task { try await client.callTool("get_me", access: tokens.access, at: c.a.base) }
        try await waitUntil("the call reached CloudKit") {
            let now = try await c.emulator.stats()["requests"]?.intValue ?? 0
            defer { seen = now }
            return now > seen + 1
        }
        let refreshed = try await client.refresh(tokens.refresh, at: c.b.base).get()
        expectResult(try await call.value)
        try await c.emulator.control("latency", ["milliseconds": 0])
        expectResult(try await client.callTool("get_me", access: refreshed.access, at: c.b.base))
        expectResult(try await client.callTool("get_me", access: refreshed.access, at: c.a.base))
    }
}

extension ToolOutcome {
    var httpStatus: Int {
        if case .http(let status, _) = self { return status }
        return 200
    }
}
