import Foundation
import RelayHTTP
import RelayTestSupport
import Testing

/// `kill -9` of a SQLite-backed relay in the middle of tool calls and refreshes, and a restart on
/// the same data and port: the file passes `PRAGMA integrity_check`, no grant is lost, and each
/// client carries on after at most one retry of the request the crash interrupted.
///
/// The emulator keeps a rotated-away token valid (`--rotation keep`, what Apple's service does in
/// practice). With `invalidate`, a CloudKit response lost with the process takes the only valid
/// token with it; the grant then waits for its person to sign in to iCloud again (issue 39,
/// `SignInAgainTests`, the fault suite's strict `kill -9` row) — see docs/operations.md.
extension AcceptanceSuite {
    @Suite(.timeLimit(.minutes(10))) struct CrashRestartTests {
        @Test func testKill9UnderLoadLosesNoGrantAndClientsContinueAfterOneRetry() async throws {
            let fixture = try await RelayFixture(rotation: "keep")
            defer { fixture.remove() }
            let (http, setup) = (fixture.http, fixture.setup)
            let port = try freePort()
            var relay = try await setup.start(port: port, http: http)
            let database = setup.directory + "/relay.sqlite"

            var clients: [LoadClient] = []
            for index in 0..<4 {
                let (client, tokens) = try await RelayClient.connected(
                    http: http, appleID: "load\(index)@example.com", at: relay.base)
                clients.append(LoadClient(client: client, tokens: tokens, base: relay.base, name: "client \(index)"))
            }
            let progress = OperationCounter()
            let perClient = 40
            let runs = clients.map { client in Task { try await client.run(operations: perClient, progress: progress) }
            }

            try await waitUntil("the load got going", timeout: .seconds(60)) { progress.value >= 30 }
            try await relay.child.kill9()
            let crashed = try await inspectSQLite(database)
            #expect(crashed.integrity == ["ok"])
            #expect(crashed.grants == 4)
            #expect(progress.value < perClient * clients.count, "the crash came after the load ended")
            relay = try await setup.start(port: port, http: http)

            var reports: [LoadClient.Report] = []
            for run in runs { reports.append(try await run.value) }
            #expect(reports.map(\.operations) == Array(repeating: perClient, count: clients.count))
            #expect(reports.map(\.retries).reduce(0, +) > 0, "no request was interrupted by the crash")

            // Every grant still works after a clean stop and start, and the file is sound.
            relay.child.signal(SIGTERM)
            #expect(try await relay.child.waitForExit() == 0, "\(relay.child.text)")
            let stopped = try await inspectSQLite(database)
            #expect(stopped.integrity == ["ok"])
            #expect(stopped.grants == 4)
            relay = try await setup.start(port: port, http: http)
            for (client, report) in zip(clients, reports) {
                let outcome = try await client.client.callTool("get_me", access: report.tokens.access, at: relay.base)
                #expect(outcome.isResult, "\(client.name): \(outcome)")
                _ = try await client.client.refresh(report.tokens.refresh, at: relay.base).get()
            }
        }
    }
}
