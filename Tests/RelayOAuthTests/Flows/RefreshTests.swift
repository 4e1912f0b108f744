import RelayJSON
import Testing

@testable import RelayOAuth

/// Refresh rotation: a new pair every time, the idempotent retry within the grace window
/// (the same pair), reuse revoking the grant, scope narrowing only, resource and client binding.
struct RefreshTests {
    func error(_ response: TestResponse) -> String? { CodeExchangeTests.error(response) }

    @Test func rotationIssuesANewPairAndTheOldAccessTokenStillWorks() async throws {
        try await withHarness { h in
            let first = try await h.connect()
            let response = try await h.refresh(try #require(first.refreshToken), clientID: first.clientID)
            #expect(response.status == 200)
            #expect(response.header("cache-control") == "no-store")
            let second = try Tokens(response, clientID: first.clientID)
            #expect(second.accessToken != first.accessToken)
            #expect(second.refreshToken != first.refreshToken)
            #expect(try await h.mcp(second.accessToken).status == 200)
            #expect(try await h.mcp(first.accessToken).status == 200, "access tokens live out their hour")
        }
    }

    @Test func retryWithinGraceReturnsTheSamePair() async throws {
        try await withHarness { h in
            let first = try await h.connect()
            let old = try #require(first.refreshToken)
            let a = try Tokens(try await h.refresh(old, clientID: first.clientID), clientID: first.clientID)
            h.clock.advance(by: 119)
            let b = try Tokens(try await h.refresh(old, clientID: first.clientID), clientID: first.clientID)
            #expect(a.accessToken == b.accessToken)
            #expect(a.refreshToken == b.refreshToken)
            #expect(b.expiresIn == a.expiresIn - 119)
            // The pair is still the live branch.
            #expect(try await h.mcp(b.accessToken).status == 200)
            let c = try await h.refresh(try #require(b.refreshToken), clientID: first.clientID)
            #expect(c.status == 200)
        }
    }

    @Test func reuseAfterGraceRevokesTheGrant() async throws {
        try await withHarness { h in
            let first = try await h.connect()
            let old = try #require(first.refreshToken)
            let second = try Tokens(try await h.refresh(old, clientID: first.clientID), clientID: first.clientID)
            h.clock.advance(by: 121)
            let reuse = try await h.refresh(old, clientID: first.clientID)
            #expect(error(reuse) == "invalid_grant")
            #expect(try await h.mcp(second.accessToken).status == 401, "the whole grant is gone")
            #expect(
                error(try await h.refresh(try #require(second.refreshToken), clientID: first.clientID))
                    == "invalid_grant")
            #expect(h.recordedEvents.contains { if case .refreshReuse = $0 { true } else { false } })
        }
    }

    @Test func reuseOfAnOlderGenerationRevokesEvenInsideGrace() async throws {
        try await withHarness { h in
            let first = try await h.connect()
            let r0 = try #require(first.refreshToken)
            let second = try Tokens(try await h.refresh(r0, clientID: first.clientID), clientID: first.clientID)
            let third = try Tokens(
                try await h.refresh(try #require(second.refreshToken), clientID: first.clientID),
                clientID: first.clientID)
            // r0's successor has itself been rotated: r0 is now plain reuse.
            #expect(error(try await h.refresh(r0, clientID: first.clientID)) == "invalid_grant")
            #expect(try await h.mcp(third.accessToken).status == 401)
        }
    }

    @Test func concurrentRefreshesGetTheSamePair() async throws {
        try await withHarness { h in
            let first = try await h.connect()
            let token = try #require(first.refreshToken)
            let responses = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for _ in 0..<8 { group.addTask { try await h.refresh(token, clientID: first.clientID) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.allSatisfy { $0.status == 200 }, "\(responses.map(\.status))")
            let pairs = Set(try responses.map { try Tokens($0, clientID: first.clientID).refreshToken ?? "" })
            #expect(pairs.count == 1, "one successor, never two live branches")
            // Exactly one refresh token and one successor access token were stored for this rotation.
            let grant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(first.accessToken))
            let index = try await h.store.queryAll(.init(pk: "GRANT#" + grant.grantID, skPrefix: "REFRESH#"))
            #expect(index.count == 2, "the original and the one successor")
            let access = try await h.store.queryAll(.init(pk: "GRANT#" + grant.grantID, skPrefix: "TOKEN#"))
            #expect(access.count == 2)
        }
    }

    @Test func scopeMayNarrowButNeverExpand() async throws {
        try await withHarness { h in
            let client = try await h.register()
            let verifier = OAuthHarness.newVerifier()
            let page = OAuthHarness.authorizePath(
                clientID: client.id, verifier: verifier, extra: [("scope", "todos:read")])
            let callback = try await h.signIn(browser: h.browser(), authorizePath: page)
            let code = try #require(callback.locationQuery["code"]?.first)
            let narrow = try Tokens(
                try await h.exchange(code: code, verifier: verifier, clientID: client.id), clientID: client.id)
            #expect(narrow.scope == "todos:read")
            let expand = try await h.refresh(
                try #require(narrow.refreshToken), clientID: client.id, extra: [("scope", "todos:read todos:write")])
            #expect(error(expand) == "invalid_scope")
            let full = try await h.connect()
            let narrowed = try await h.refresh(
                try #require(full.refreshToken), clientID: full.clientID, extra: [("scope", "todos:read")])
            #expect(narrowed.status == 200)
            #expect(try Tokens(narrowed, clientID: full.clientID).scope == "todos:read")
            // Claude Code sends no scope on refresh: the presented refresh token's scope is kept. Since
            // issue 37 a narrowed connection stays narrowed (before, this went back to the grant's scope).
            let again = try Tokens(narrowed, clientID: full.clientID)
            let kept = try await h.refresh(try #require(again.refreshToken), clientID: full.clientID)
            let keptTokens = try Tokens(kept, clientID: full.clientID)
            #expect(keptTokens.scope == "todos:read")
            // Nor can the narrowed refresh token ask for the grant's scope again.
            let widened = try await h.refresh(
                try #require(keptTokens.refreshToken), clientID: full.clientID,
                extra: [("scope", "todos:read todos:write")])
            #expect(error(widened) == "invalid_scope")
        }
    }

    @Test func resourceMismatchAndClientMismatchHaveNoEffect() async throws {
        try await withHarness { h in
            let first = try await h.connect()
            let token = try #require(first.refreshToken)
            let wrongResource = try await h.refresh(
                token, clientID: first.clientID, extra: [("resource", "https://other.example/mcp")])
            #expect(error(wrongResource) == "invalid_target")
            let other = try await h.register()
            #expect(error(try await h.refresh(token, clientID: other.id)) == "invalid_grant")
            let ok = try await h.refresh(
                token, clientID: first.clientID, extra: [("resource", "https://relay.example/mcp/")])
            #expect(ok.status == 200)
        }
    }

    @Test func malformedMissingAndExpiredTokens() async throws {
        try await withHarness { h in
            let first = try await h.connect()
            #expect(error(try await h.refresh("mdr_rt_garbage", clientID: first.clientID)) == "invalid_grant")
            #expect(
                error(try await h.refresh(TokenKind.refreshToken.generate(), clientID: first.clientID))
                    == "invalid_grant")
            #expect(error(try await h.refresh(first.accessToken, clientID: first.clientID)) == "invalid_grant")
            let missing = try await h.client.postForm(
                "/token", [("grant_type", "refresh_token"), ("client_id", first.clientID)])
            #expect(error(missing) == "invalid_request")
            h.clock.advance(by: 30 * 86400 + 1)
            #expect(
                error(try await h.refresh(try #require(first.refreshToken), clientID: first.clientID))
                    == "invalid_grant")
        }
    }

    @Test func slidingRefreshIsCappedByTheGrantLifetime() async throws {
        let settings: (inout OAuthConfiguration) -> Void = { $0.lifetimes.grant = .seconds(40 * 86400) }
        try await withHarness(configure: settings) { h in
            var tokens = try await h.connect()
            // Refresh every 20 days: each new refresh token lives 30 days, but nothing outlives 40.
            h.clock.advance(by: 20 * 86400)
            tokens = try Tokens(
                try await h.refresh(try #require(tokens.refreshToken), clientID: tokens.clientID),
                clientID: tokens.clientID)
            h.clock.advance(by: 19 * 86400)
            let late = try await h.refresh(try #require(tokens.refreshToken), clientID: tokens.clientID)
            #expect(late.status == 200)
            let last = try Tokens(late, clientID: tokens.clientID)
            #expect(last.expiresIn <= 86400, "the access token ends with the grant")
            h.clock.advance(by: 86400 + 1)
            #expect(
                error(try await h.refresh(try #require(last.refreshToken), clientID: tokens.clientID))
                    == "invalid_grant")
            #expect(try await h.mcp(last.accessToken).status == 401)
        }
    }

    @Test func clientWithoutRefreshGrantCannotRefresh() async throws {
        try await withHarness { h in
            let full = try await h.connect()
            // Re-register the same redirect without refresh_token and try to use someone's token: no.
            let limited = try await h.register(extra: #","grant_types":["authorization_code"]"#)
            #expect(
                error(try await h.refresh(try #require(full.refreshToken), clientID: limited.id)) == "invalid_grant")
        }
    }
}
