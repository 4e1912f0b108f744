import Foundation
import RelayJSON
import Testing

extension EndToEndSuite {
    /// A token that was revoked, or whose grant ended, is refused on the very next request to the
    /// instance that revoked it, although that instance had just cached it (the validation cache at
    /// its default TTL, 5 s). Through the whole relay: real socket, SQLite, the vault, the emulator.
    @Suite(.timeLimit(.minutes(10))) struct RevocationAtOnceTests {
        /// Two `tools/list` calls: the first validates against the store and caches the token, the
        /// second is served from the cache. Both must succeed, or the test below proves nothing.
        private func warm(_ mcp: MCPCalls, _ token: String, _ note: String) async throws {
            for _ in 0..<2 {
                let reply = try await mcp.post("tools/list", token: token)
                #expect(reply.status == 200, "\(note): the token must work (and be cached) before")
            }
        }

        private func assertRefused(_ mcp: MCPCalls, _ token: String, _ note: String) async throws {
            let reply = try await mcp.post("tools/list", token: token)
            #expect(reply.status == 401, "\(note): a revoked token was served from memory")
            #expect(reply.headers["www-authenticate"]?.contains(#"error="invalid_token""#) == true, "\(note)")
        }

        @Test func testRevokedTokensAreRefusedOnTheVeryNextRequest() async throws {
            let relay = try await RelayHarness()
            defer { relay.removeFiles() }
            #expect(relay.application.configuration.oauth.validationCacheTTL == 5, "the default TTL")
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)

            // RFC 7009, an access token alone: that token stops, the grant and its refresh token stay.
            let client = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let first = try await client.connect(appleID: "revoke@example.com")
            try await warm(mcp, first.access, "revoke access")
            let revokedAccess = try await client.revoke(first.access)
            #expect(revokedAccess == 200)
            try await assertRefused(mcp, first.access, "RFC 7009 access token")
            let next = try await client.refresh(first)
            let (works, _) = try await mcp.tool("get_me", token: next.access)
            #expect(works.status == 200, "the grant survives the revocation of one access token")

            // RFC 7009, the refresh token: the whole grant ends, its cached access token with it.
            try await warm(mcp, next.access, "revoke refresh")
            let revokedRefresh = try await client.revoke(next.refresh)
            #expect(revokedRefresh == 200)
            try await assertRefused(mcp, next.access, "RFC 7009 refresh token")

            // Refresh-token reuse: presenting a spent refresh token ends the grant at once.
            let reused = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let original = try await reused.connect(appleID: "reuse@example.com")
            let rotated = try await reused.refresh(original)
            let rotatedAgain = try await reused.refresh(rotated)
            try await warm(mcp, rotatedAgain.access, "reuse")
            try await warm(mcp, original.access, "reuse (older access token)")
            // An older generation: reuse, even inside the grace window.
            let refused = try await reused.refusedRefresh(original)
            #expect(refused.status == 400, "a spent refresh token was accepted")
            #expect(refused.error == "invalid_grant")
            try await assertRefused(mcp, rotatedAgain.access, "refresh reuse")
            try await assertRefused(mcp, original.access, "refresh reuse (older access token)")

            // The disconnect page: every grant of that person, whichever client holds it.
            let one = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let other = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let bystander = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let a = try await one.connect(appleID: "leaving@example.com")
            let b = try await other.connect(appleID: "leaving@example.com")
            let c = try await bystander.connect(appleID: "staying@example.com")
            for (token, note) in [(a.access, "disconnect a"), (b.access, "disconnect b"), (c.access, "bystander")] {
                try await warm(mcp, token, note)
            }
            let page = try await one.disconnect(appleID: "leaving@example.com")
            #expect(page.contains("Removed 2 connections."), "\(page)")
            try await assertRefused(mcp, a.access, "disconnect a")
            try await assertRefused(mcp, b.access, "disconnect b")
            let stays = try await mcp.post("tools/list", token: c.access)
            #expect(stays.status == 200, "another person's connection is untouched")

            await relay.stop()
        }

        /// CloudKit ends the session (421): the grant is deleted, and every token of it — including
        /// another access token the relay had cached a moment before — is refused on the next request.
        @Test func testADeadCloudKitSessionEndsEveryCachedTokenOfTheGrantAtOnce() async throws {
            let relay = try await RelayHarness()
            defer { relay.removeFiles() }
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
            let client = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let first = try await client.connect(appleID: "ended@example.com")
            let second = try await client.refresh(first)  // the first access token stays valid until it expires
            try await warm(mcp, first.access, "421 first")
            try await warm(mcp, second.access, "421 second")

            _ = try relay.emulator.expireSessions()
            let (ended, _) = try await mcp.tool("get_me", token: second.access)
            #expect(ended.status == 401)
            try await assertRefused(mcp, first.access, "421, the grant's other cached token")
            try await assertRefused(mcp, second.access, "421, the token that met the dead session")
            await relay.stop()
        }
    }
}
