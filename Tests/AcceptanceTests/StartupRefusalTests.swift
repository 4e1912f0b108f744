import Foundation
import RelayTestSupport
import Testing

/// What `mustdo-relay serve` does with an operator's mistake at start (docs/operations.md,
/// "Start-up refuses"): what cannot work stops it with the setting and the fix named; what may not
/// work is logged and reported on `/readyz` as degraded.
extension AcceptanceSuite {
    @Suite(.timeLimit(.minutes(10))) struct StartupRefusalTests {
        /// A `RELAY_KMS_KEY_ID` that names no key: no person could connect, so the instance never listens.
        @Test func testAWrongKMSKeyStopsServeWithTheSettingNamed() async throws {
            let fixture = try await RelayFixture(
                aws: true, settings: ["RELAY_KMS_KEY_ID": "00000000-0000-4000-8000-000000000000"])
            defer { fixture.remove() }
            var environment = MotoProcess.credentials
            environment["RELAY_PORT"] = "0"
            let serve = try ChildProcess(
                product: "mustdo-relay", ["serve", "--config", fixture.setup.configFile], environment: environment)
            let status = try await serve.waitForExit()
            #expect(status == 1, "\(serve.text)")
            #expect(
                serve.text.contains("RELAY_KEY_SERVICE: the key service cannot make and open a data key"),
                "\(serve.text)")
            #expect(!serve.text.contains("listening on"), "\(serve.text)")
        }

        /// A CloudKit base URL nobody answers at: the relay starts (CloudKit may come back), says so in
        /// the log at once, and `/readyz` reports degraded while staying in rotation.
        @Test func testAnUnreachableCloudKitIsLoggedAndReportedDegraded() async throws {
            let nobody = try freePort()
            let fixture = try await RelayFixture(settings: ["RELAY_CLOUDKIT_BASE_URL": "http://127.0.0.1:\(nobody)"])
            defer { fixture.remove() }
            let relay = try await fixture.start()
            _ = try await relay.child.waitForOutput(
                matching: #""event":"cloudkit\.unreachable".*"reason":"([^"]*RELAY_CLOUDKIT_BASE_URL[^"]*)""#)
            try await waitUntil("/readyz reports CloudKit", timeout: .seconds(20)) {
                let readiness = try await relay.readiness()
                return readiness.status == 200 && readiness.body.contains("degraded: CloudKit does not answer")
            }
        }

        /// A second `serve` on the SQLite file of a running one is refused with the fix named; the first
        /// goes on serving, and once it is gone (even by `kill -9`) the file can be served again.
        @Test func testASecondServeOnOneSQLiteFileIsRefused() async throws {
            let fixture = try await RelayFixture()
            defer { fixture.remove() }
            let first = try await fixture.start()
            let second = try ChildProcess(
                product: "mustdo-relay", ["serve", "--config", fixture.setup.configFile],
                environment: ["RELAY_PORT": "0"])
            let status = try await second.waitForExit()
            #expect(status == 1, "\(second.text)")
            #expect(second.text.contains("is in use by another `mustdo-relay serve`"), "\(second.text)")
            #expect(second.text.contains("one SQLite file takes one relay process"), "\(second.text)")
            #expect(try await first.readiness().status == 200)
            try await first.child.kill9()
            let again = try await fixture.start()
            #expect(try await again.readiness().status == 200)
        }
    }
}
