import Foundation
import RelayHTTP
import RelayTestSupport
import Testing

/// `/readyz` of `mustdo-relay serve` on DynamoDB and KMS (moto) behind the fault proxy, each check
/// a fresh one (the first probe, or 10 s after the last, or after a request found the store away):
/// - CloudKit hung with tool calls of several grants waiting on it: the probe answers at once, ready
///   (it shares no queue, lane or connection with CloudKit calls);
/// - the store and KMS both slowed to 2 s, which the relay's own calls (3 s attempt timeout) still
///   get through: ready, answered in about 2 s (the two checks at once, not one after the other);
/// - both hung: 503 naming both, answered within one check's limit (about 3 s), well inside a load
///   balancer's probe timeout; ready again once they answer.
extension AcceptanceSuite {
    @Suite(.timeLimit(.minutes(5))) struct ReadinessTests {
        @Test func readyzTellsSlowFromHungAndNeverWaitsOnCloudKit() async throws {
            let http = try HTTPClient(
                configuration: HTTPClientConfiguration(connectTimeout: .seconds(2), timeout: .seconds(30)))
            defer { http.shutdown() }
            let aws = try await FaultyAWS(http: http, instances: ["a"])
            let emulator = try await EmulatorProcess(http: http, rotation: "keep")
            var settings = aws.relaySettings
            settings["RELAY_CLOUDKIT_TIMEOUT"] = "2"
            let setup = try await RelaySetup(
                emulator: emulator, settings: settings, environment: MotoProcess.credentials)
            defer { setup.remove() }
            let relay = try await setup.start(http: http, extra: aws.endpoints(for: "a"))
            var grants: [(RelayClient, RelayClient.Tokens)] = []
            for index in 0..<4 {
                grants.append(
                    try await RelayClient.connected(http: http, appleID: "ready\(index)@example.com", at: relay.base))
            }

            // CloudKit hung: four calls per grant wait on it (one at a time per grant, the rest queued).
            try await emulator.control("latency", ["milliseconds": 6000])
            let calls = grants.flatMap { grant in
                (0..<4).map { _ in
                    Task { try await grant.0.callTool("get_me", access: grant.1.access, at: relay.base) }
                }
            }
            try await Task.sleep(for: .milliseconds(500))
            var (readiness, took) = try await timedReadiness(relay)
            #expect(readiness.status == 200 && readiness.body == "ready", "\(readiness)")
            // Under the 2 s CloudKit timeout: the probe did not wait behind any CloudKit call.
            #expect(took < .seconds(2), "the probe waited \(took) while CloudKit hung")
            for call in calls {
                let outcome = try await call.value
                #expect(!outcome.isResult, "CloudKit answered a call it should have held: \(outcome)")
            }
            try await emulator.control("latency", ["milliseconds": 0])
            var lastCheck = ContinuousClock.now

            // Both slowed to 2 s, once the cached answer is older than its 10 s.
            try await aws.set(["store-a", "kms-a"], .delay(milliseconds: 2000))
            try await Task.sleep(until: lastCheck + .seconds(10.5))
            lastCheck = ContinuousClock.now
            (readiness, took) = try await timedReadiness(relay)
            #expect(readiness.status == 200 && readiness.body == "ready", "a slow store and KMS: \(readiness)")
            // At least the delay (the checks really went to the slowed services), less than two of them.
            #expect(took >= .seconds(2) && took < .seconds(4), "the probe took \(took)")

            // Both hung: a registration finds the store away (after the 3 s attempt timeout), so the next
            // probe checks again rather than repeat the cached "ready".
            try await aws.set(["store-a", "kms-a"], .hang)
            let registration = try await http.send(
                ClientRequest(
                    method: .post, url: relay.base + "/register", headers: ["Content-Type": "application/json"],
                    body: Array(
                        #"{"redirect_uris":["http://127.0.0.1:9/cb"],"token_endpoint_auth_method":"none"}"#.utf8)))
            #expect(registration.status == 503, "\(registration.text)")
            (readiness, took) = try await timedReadiness(relay)
            #expect(readiness.status == 503, "\(readiness)")
            #expect(
                readiness.body.hasPrefix("not ready: store") && readiness.body.contains("key service"), "\(readiness)")
            #expect(took >= .seconds(2.5) && took < .seconds(5), "the probe took \(took) with both hung")

            try await aws.set(["store-a", "kms-a"], .pass)
            try await waitUntil("/readyz is ready again", timeout: .seconds(30)) {
                try await relay.readiness().status == 200
            }
            #expect(relay.child.isRunning)
        }

        /// `GET /readyz` and how long it took to answer.
        private func timedReadiness(_ relay: RelayInstance) async throws -> ((status: Int, body: String), Duration) {
            let started = ContinuousClock.now
            let readiness = try await relay.readiness(timeout: .seconds(20))
            return (readiness, ContinuousClock.now - started)
        }
    }
}
