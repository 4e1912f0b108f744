import Foundation
import RelayHTTP
import Testing

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

/// DynamoDB and KMS (moto) going away under a running relay, first refusing connections (the
/// forwarder in front of moto killed), then hanging (moto stopped with SIGSTOP): requests that need
/// them get a quick 503 and `/readyz` says not ready; the process stays up; everything works again
/// when they return, and a CloudKit token rotated during the outage reaches the store.
extension AcceptanceSuite {
    @Suite(.timeLimit(.minutes(10))) struct StoreOutageTests {
        @Test func testStoreAndKeyServiceOutagesGiveQuick503sAndRecover() async throws {
            let fixture = try await RelayFixture(aws: true, settings: ["RELAY_OAUTH_VALIDATION_CACHE_TTL": "60"])
            defer { fixture.remove() }
            let (http, setup) = (fixture.http, fixture.setup)
            let moto = try #require(fixture.moto)
            let relay = try await setup.start(http: http)
            let (client, tokens) = try await RelayClient.connected(
                http: http, appleID: "grace@example.com", at: relay.base)
            expectResult(try await client.callTool("get_me", access: tokens.access, at: relay.base))
            // A pair no request has used yet, so its validation needs the store.
            var spare = try await client.refresh(tokens.refresh, at: relay.base).get()

            // Refused connections.
            try await moto.stopProxy()
            try await expectQuickOutage(relay, client: client, spare: spare)
            // A token validated before the outage still reaches CloudKit (validation cache, unwrapped-key
            // cache); CloudKit rotates the token and the relay keeps the new one in memory.
            for _ in 0..<2 {
                let cached = try await client.callTool("get_me", access: tokens.access, at: relay.base)
                #expect(cached.isResult, "\(cached)")
            }
            try await moto.startProxy()
            try await waitUntil("/readyz is ready again", timeout: .seconds(30)) {
                try await relay.readiness().status == 200
            }
            spare = try await client.refresh(spare.refresh, at: relay.base).get()
            expectResult(try await client.callTool("get_me", access: tokens.access, at: relay.base))

            // A second instance reads the grant from the store: its CloudKit token must be the live one.
            let other = try await setup.start(http: http)
            let fromStore = try await client.callTool("get_me", access: spare.access, at: other.base)
            #expect(fromStore.isResult, "the token rotated during the outage never reached the store: \(fromStore)")

            // Hanging: moto stops answering but connections are accepted.
            let beforeHang = try await client.refresh(spare.refresh, at: relay.base).get()
            moto.moto.signal(SIGSTOP)
            try await expectQuickOutage(relay, client: client, spare: beforeHang)
            moto.moto.signal(SIGCONT)
            try await waitUntil("/readyz is ready again", timeout: .seconds(30)) {
                try await relay.readiness().status == 200
            }
            // Requests that timed out are carried out late by moto; whatever they changed, the same
            // refresh token works again (a rotation, or the grace-window retry of an applied one).
            let resumed = try await client.refresh(beforeHang.refresh, at: relay.base).get()
            expectResult(try await client.callTool("get_me", access: resumed.access, at: other.base))
            #expect(relay.child.isRunning && other.child.isRunning)
        }

        /// What a client sees while the store and the key service are unreachable: 503s within
        /// seconds (never a hang), `/readyz` turning 503, and the process still serving.
        private func expectQuickOutage(_ relay: RelayInstance, client: RelayClient, spare: RelayClient.Tokens)
            async throws
        {
            let bound = Duration.seconds(12)
            var started = ContinuousClock.now
            let refresh = try await client.refresh(spare.refresh, at: relay.base)
            #expect(refresh == .failure(.init(status: 503, code: "temporarily_unavailable")))
            #expect(ContinuousClock.now - started < bound)

            started = ContinuousClock.now
            let call = try await client.callTool("get_me", access: spare.access, at: relay.base)
            #expect(call.httpStatus == 503, "\(call)")
            #expect(ContinuousClock.now - started < bound)

            started = ContinuousClock.now
            let registration = try await http(relay).send(
                ClientRequest(
                    method: .post, url: relay.base + "/register", headers: ["Content-Type": "application/json"],
                    body: Array(
                        #"{"redirect_uris":["http://127.0.0.1:9/cb"],"token_endpoint_auth_method":"none"}"#.utf8)))
            #expect(registration.status == 503, "\(registration.text)")
            #expect(ContinuousClock.now - started < bound)

            try await waitUntil("/readyz reports the outage", timeout: .seconds(30)) {
                let readiness = try await relay.readiness()
                return readiness.status == 503 && readiness.body.contains("store")
                    && readiness.body.contains("key service")
            }
            #expect(try await relay.readiness(timeout: .seconds(15)).status == 503)
            let health = try await http(relay).send(ClientRequest(url: relay.base + "/healthz"))
            #expect(health.status == 200)
        }

        private func http(_ relay: RelayInstance) -> HTTPClient { relay.http }
    }
}
