import RelayHTTP
import RelayJSON
import RelayStore
import RelaySync
import Testing

@testable import RelayOAuth

/// Store outages, rate limits on pages, step-up challenges, and re-authorization policy.
struct FailureAndPolicyTests {
    @Test func storeOutagesAreRetryableErrorsNever500() async throws {
        let failing = Locked<FailingStore?>(nil)
        let harness = try await OAuthHarness.start(wrap: { base in
            let store = FailingStore(base)
            failing.withLock { $0 = store }
            return store
        })
        do {
            let tokens = try await harness.connect()
            let store = try #require(failing.withLock { $0 })
            for error in [StoreError.throttled, .unavailable("disk")] {
                store.fail(with: error)
                let refresh = try await harness.refresh(try #require(tokens.refreshToken), clientID: tokens.clientID)
                #expect(refresh.status == 503)
                #expect(try JSONValue(parsing: refresh.body)["error"] == "temporarily_unavailable")
                #expect(refresh.header("cache-control") == "no-store")
                let mcp = try await harness.mcp(tokens.accessToken)
                #expect(mcp.status == 503)
                let page = try await harness.browser().get(
                    OAuthHarness.authorizePath(clientID: tokens.clientID, verifier: OAuthHarness.newVerifier()))
                #expect(page.status == 503)
                #expect(page.text.contains("Something went wrong"))
                AuthorizeEndpointTests.expectPageHeaders(page)
            }
            store.fail(with: nil)
            // Nothing was half-done: the refresh token still rotates normally afterwards.
            #expect(
                try await harness.refresh(try #require(tokens.refreshToken), clientID: tokens.clientID).status == 200)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    @Test func pagesThatStorePendingRequestsAreRateLimited() async throws {
        let settings: (inout OAuthConfiguration) -> Void = {
            $0.pageRateLimit = .init(requests: 2, window: .seconds(600))
        }
        try await withHarness(configure: settings) { h in
            let client = try await h.register()
            let path = OAuthHarness.authorizePath(clientID: client.id, verifier: OAuthHarness.newVerifier())
            #expect(try await h.client.get(path).status == 200)
            #expect(try await h.client.get("/disconnect").status == 200)
            let limited = try await h.client.get(path)
            #expect(limited.status == 429)
            #expect(limited.text.contains("Too many attempts"))
        }
    }

    @Test func insufficientScopeChallengeNamesTheNeededAndGrantedScopes() async throws {
        try await withHarness { h in
            let metadata = "resource_metadata=\"https://relay.example/.well-known/oauth-protected-resource/mcp\""
            // A read-only token calling a write tool: ask for both, so stepping up loses nothing.
            #expect(
                h.oauth.insufficientScopeChallenge(needed: ["todos:write"], granted: ["todos:read"])
                    == "Bearer error=\"insufficient_scope\", scope=\"todos:read todos:write\", " + metadata)
            // The server's order, whatever order the caller gave; no duplicates.
            #expect(
                h.oauth.insufficientScopeChallenge(needed: ["todos:write", "todos:read"], granted: ["todos:read"])
                    == "Bearer error=\"insufficient_scope\", scope=\"todos:read todos:write\", " + metadata)
            // A write-only token calling a read tool.
            #expect(
                h.oauth.insufficientScopeChallenge(needed: ["todos:read"], granted: ["todos:write"])
                    == "Bearer error=\"insufficient_scope\", scope=\"todos:read todos:write\", " + metadata)
            // A scope the server does not list still goes in (after the listed ones), never dropped.
            #expect(
                h.oauth.insufficientScopeChallenge(needed: ["other:x"], granted: ["todos:read"])
                    == "Bearer error=\"insufficient_scope\", scope=\"todos:read other:x\", " + metadata)
        }
    }

    @Test func reauthorizingKeepsOtherGrantsOfTheSameClientAndUser() async throws {
        try await withHarness { h in
            let client = try await h.register()
            let first = try await h.connect(clientID: client.id)
            let second = try await h.connect(clientID: client.id)
            // Claude Code shares one client across processes: a new sign-in must not log the others out.
            #expect(try await h.mcp(first.accessToken).status == 200)
            #expect(try await h.mcp(second.accessToken).status == 200)
        }
    }

    @Test func tokensForAResourceWithAQueryAreAnotherAudience() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            await #expect(throws: OAuthError.self) {
                try await h.oauth.validateBearer(
                    OAuthHarness.bearerRequest(tokens.accessToken), resource: "https://relay.example/mcp?tenant=x")
            }
        }
    }
}
