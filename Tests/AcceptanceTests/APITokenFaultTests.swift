import Foundation
import RelayHTTP
import RelayJSON
import RelayTestSupport
import Testing

/// An operator's fault must never cost a person their connection: `mustdo-relay serve` with a
/// mistyped CloudKit API token file, against the standalone emulator (which answers a wrong API
/// token with 401 AUTHENTICATION_FAILED, as Apple's samples describe). And a session that really
/// ended still ends its grant, whether CloudKit says so with 421 or with 401.
extension AcceptanceSuite {
    @Suite(.timeLimit(.minutes(10))) struct APITokenFaultTests {
        private func writeAPIToken(_ value: String, in setup: RelaySetup) throws {
            let tokenFile = setup.directory + "/secrets/cloudkit-api-token"
            try FileManager.default.removeItem(atPath: tokenFile)
            #expect(
                FileManager.default.createFile(
                    atPath: tokenFile, contents: Data((value + "\n").utf8), attributes: [.posixPermissions: 0o600]))
        }

        private func stop(_ relay: RelayInstance) async throws {
            relay.child.signal(SIGTERM)
            #expect(try await relay.child.waitForExit() == 0, "\(relay.child.text)")
        }

        /// Runs `body` with a fresh `RelayFixture`, and always removes it.
        private func withSetup(_ body: (HTTPClient, EmulatorProcess, RelaySetup) async throws -> Void) async throws {
            let fixture = try await RelayFixture()
            defer { fixture.remove() }
            try await body(fixture.http, fixture.emulator, fixture.setup)
        }

        @Test func testAWrongAPITokenKeepsEveryGrantAndTheSameTokensWorkOnceItIsFixed() async throws {
            try await withSetup { http, _, setup in
                var relay = try await setup.start(http: http)
                let (alice, aliceTokens) = try await RelayClient.connected(
                    http: http, appleID: "alice@example.com", at: relay.base)
                let (bob, bobTokens) = try await RelayClient.connected(
                    http: http, appleID: "bob@example.com", at: relay.base)
                expectResult(try await alice.callTool("get_me", access: aliceTokens.access, at: relay.base))
                try await stop(relay)

                // The operator's mistake: a mistyped token file, then a restart.
                try writeAPIToken(EmulatorProcess.apiToken + "-typo", in: setup)
                relay = try await setup.start(http: http)
                // Checked at start: the log says so before anyone calls a tool, and /readyz reports it while
                // keeping the instance in rotation.
                _ = try await relay.child.waitForOutput(matching: #""event":"cloudkit\.api_token_refused""#)
                try await waitUntil("/readyz reports the refused API token") {
                    let readiness = try await relay.readiness()
                    return readiness.status == 200
                        && readiness.body.hasPrefix("degraded: CloudKit refuses the API token")
                }
                #expect(try await relay.metric("relay_cloudkit_api_token_refused") == 1)

                // Every call fails with a clear tool error, reads and writes alike; nobody gets the 401.
                let checked = #"relay_cloudkit_api_token_checks_total{result="refused"}"#
                let checksBefore = try await relay.metric(checked)
                let base = relay.base
                let outcomes = try await withThrowingTaskGroup(of: ToolOutcome.self) { group in
                    for index in 0..<30 {
                        group.addTask {
                            index.isMultiple(of: 2)
                                ? try await alice.callTool("get_me", access: aliceTokens.access, at: base)
                                : try await bob.callTool("add_todo", ["title": "x"], access: bobTokens.access, at: base)
                        }
                    }
                    return try await group.reduce(into: [ToolOutcome]()) { $0.append($1) }
                }
                #expect(outcomes.count == 30)
                for outcome in outcomes {
                    #expect(outcome == .toolError(code: "UPSTREAM_UNAVAILABLE", retryAfter: 60))
                }
                let body = try await alice.callToolText("list_todos", access: aliceTokens.access, at: relay.base)
                #expect(body.contains("the service is misconfigured"), "\(body)")
                #expect(body.contains("Your connection is kept"), "\(body)")
                let checksDuring = try await relay.metric(checked) - checksBefore
                #expect(checksDuring <= 2, "31 refused calls must not become 31 checks")
                let refusedCalls = try await relay.metric(
                    #"relay_mcp_tool_calls_total{tool="get_me",outcome="UPSTREAM_UNAVAILABLE"}"#)
                #expect(refusedCalls >= 15)

                // The grants are all still there: the store holds both, and refreshing works.
                let kept = try await inspectSQLite(setup.directory + "/relay.sqlite").grants
                #expect(kept == 2)
                _ = try await bob.refresh(bobTokens.refresh, at: relay.base).get()
                try await stop(relay)

                // The operator fixes the file and restarts: the same access tokens work, nobody reconnects.
                try writeAPIToken(EmulatorProcess.apiToken, in: setup)
                relay = try await setup.start(http: http)
                expectResult(try await alice.callTool("get_me", access: aliceTokens.access, at: relay.base))
                expectResult(
                    try await bob.callTool(
                        "add_todo", ["title": "after the fix"], access: bobTokens.access, at: relay.base)
                )
                try await waitUntil("/readyz is plain ready again") {
                    let readiness = try await relay.readiness()
                    return readiness.status == 200 && readiness.body == "ready"
                }
                #expect(try await relay.metric("relay_cloudkit_api_token_refused") == 0)
                try await stop(relay)
            }
        }

        /// With the right API token, an ended session (expired through the emulator's control API)
        /// makes the grant wait for its person to sign in again (issue 39: `SIGN_IN_REQUIRED`; it used
        /// to end the grant with a 401), whether CloudKit answers 421 AUTHENTICATION_REQUIRED or
        /// 401 AUTHENTICATION_FAILED (then after the API token check says the token is fine).
        @Test func testAnEndedSessionMakesItsGrantWaitForSignInWhetherCloudKitAnswers421Or401() async throws {
            try await withSetup { http, emulator, setup in
                let relay = try await setup.start(http: http)
                for status in [421, 401] {
                    try await emulator.control("settings", ["deadTokenStatus": .int(status)])
                    let (client, tokens) = try await RelayClient.connected(
                        http: http, appleID: "ended-\(status)@example.com", at: relay.base)
                    expectResult(try await client.callTool("get_me", access: tokens.access, at: relay.base))
                    let accepted = try await relay.metric(#"relay_cloudkit_api_token_checks_total{result="accepted"}"#)

                    try await emulator.control("sessions/expire", [:])
                    let ended = try await client.callTool("get_me", access: tokens.access, at: relay.base)
                    #expect(ended.toolErrorCode == "SIGN_IN_REQUIRED", "\(status): \(ended)")
                    // The grant is kept, waiting: the next call says the same, and a refresh works.
                    let again = try await client.callTool("get_me", access: tokens.access, at: relay.base)
                    #expect(again.toolErrorCode == "SIGN_IN_REQUIRED", "\(status): \(again)")
                    let refreshed = try await client.refresh(tokens.refresh, at: relay.base)
                    #expect((try? refreshed.get()) != nil, "\(status): the refresh token of a waiting grant failed")
                    let checks =
                        try await relay.metric(#"relay_cloudkit_api_token_checks_total{result="accepted"}"#) - accepted
                    if status == 401 {
                        #expect(checks >= 1, "a 401 stops a grant only after the API token was checked")
                    } else {
                        #expect(checks == 0, "a 421 needs no check")
                    }
                }
                let left = try await inspectSQLite(setup.directory + "/relay.sqlite").grants
                #expect(left == 2, "both grants wait for a sign-in")
                relay.child.signal(SIGTERM)
                _ = try await relay.child.waitForExit()
            }
        }
    }
}

extension RelayClient {
    /// The text block of a `tools/call` result (what a model reads), or the HTTP body.
    func callToolText(_ name: String, _ arguments: JSONValue = [:], access: String, at base: String) async throws
        -> String
    {
        let response = try await http.send(
            Self.toolCall(name, arguments, access: access, at: base, version: "2025-11-25", accept: "application/json"))
        return response.text
    }
}
