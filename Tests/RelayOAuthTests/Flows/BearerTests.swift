import Foundation
import RelayCrypto
import RelayHTTP
import RelayTestSupport
import Testing

@testable import RelayOAuth

/// Bearer validation for `/mcp`: header only, the challenge, expiry, revocation, audience,
/// pepper rotation, and the per-token binding of the grant secret.
struct BearerTests {
    /// Every 401 names the metadata and the scopes to ask for (MCP 2025-11-25 "Scope Selection Strategy").
    let metadata =
        "resource_metadata=\"https://relay.example/.well-known/oauth-protected-resource/mcp\", scope=\"todos:read todos:write\""

    @Test func noTokenGetsTheBareChallenge() async throws {
        try await withHarness { h in
            let response = try await h.client.send("POST", "/mcp")
            #expect(response.status == 401)
            #expect(response.header("www-authenticate") == "Bearer " + metadata)
            #expect(response.header("cache-control") == "no-store")
            #expect(h.oauth.bearerPrecheck(Request(method: .post, target: "/mcp")) != nil)
        }
    }

    @Test func malformedTokensAreRefusedWithoutAStoreRead() async throws {
        try await withHarness { h in
            for header in [
                "Bearer garbage", "Bearer mdr_at_x", "Basic abc", "Bearer",
                "bearer " + TokenKind.refreshToken.generate(),
            ] {
                let response = try await h.client.send("POST", "/mcp", headers: [("Authorization", header)])
                #expect(response.status == 401, "\(header)")
                let challenge = try #require(response.header("www-authenticate"))
                #expect(challenge.hasPrefix("Bearer " + metadata))
                #expect(challenge.contains("error="))
                #expect(
                    h.oauth.bearerPrecheck(Request(method: .post, target: "/mcp", headers: ["authorization": header]))
                        != nil)
            }
            // A well-formed token passes the precheck and is looked up.
            let unknown = TokenKind.accessToken.generate()
            #expect(h.oauth.bearerPrecheck(OAuthHarness.bearerRequest(unknown)) == nil)
            let response = try await h.mcp(unknown)
            #expect(response.header("www-authenticate")?.contains("error=\"invalid_token\"") == true)
        }
    }

    @Test func tokenInTheQueryStringIsRefused() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            let query = try await h.client.send("POST", "/mcp?access_token=\(tokens.accessToken)")
            #expect(query.status == 401)
            #expect(query.header("www-authenticate")?.contains("invalid_request") == true)
            // Even together with a valid header.
            let both = try await h.client.send(
                "POST", "/mcp?access_token=\(tokens.accessToken)",
                headers: [("Authorization", "Bearer " + tokens.accessToken)])
            #expect(both.status == 401)
        }
    }

    @Test func expiredAndRevokedTokensAre401() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            h.clock.advance(by: 3599)
            #expect(try await h.mcp(tokens.accessToken).status == 200)
            h.clock.advance(by: 1)
            let expired = try await h.mcp(tokens.accessToken)
            #expect(expired.status == 401)
            #expect(expired.header("www-authenticate")?.contains("error=\"invalid_token\"") == true)
            let second = try await h.connect()
            let grant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(second.accessToken))
            #expect(try await h.oauth.deleteGrant(grant.grantID, reason: "CloudKit 421"))
            #expect(try await h.mcp(second.accessToken).status == 401)
            #expect(try await h.refresh(try #require(second.refreshToken), clientID: second.clientID).status == 400)
            // Every token item and index item of that grant is gone.
            #expect(try await h.store.queryAll(.init(pk: "GRANT#" + grant.grantID)).isEmpty)
            #expect(h.oauth.invalidTokenResponse().status.code == 401)
        }
    }

    @Test func otherAudienceIsRefused() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            let request = OAuthHarness.bearerRequest(tokens.accessToken)
            for resource in [
                "https://other.example/mcp", "https://relay.example:8443/mcp", "http://relay.example/mcp",
                "https://relay.example/mcp-other", "https://relay.example/other", "https://[::1]/mcp",
            ] {
                await #expect(throws: OAuthError.self) { try await h.oauth.validateBearer(request, resource: resource) }
            }
            // The canonical forms of the same resource are the same audience.
            _ = try await h.oauth.validateBearer(request, resource: "https://RELAY.example/mcp/")
        }
    }

    @Test func bindingOpensOnlyWithThePresentedToken() async throws {
        try await withHarness { h in
            let a = try await h.connect()
            let b = try await h.connect(appleID: "bob@example.com")
            let grantA = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(a.accessToken))
            // B's token cannot open A's bound secret.
            #expect(throws: OAuthError.self) {
                try h.oauth.grantSecret(for: grantA, in: OAuthHarness.bearerRequest(b.accessToken))
            }
            let secret = try h.oauth.grantSecret(for: grantA, in: OAuthHarness.bearerRequest(a.accessToken))
            // Ciphertext swap: A's sealed token does not open as B's grant.
            let grantB = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(b.accessToken))
            #expect(throws: CryptoError.authenticationFailed) {
                try FakeGrantSealer.open(grantA.sealed, secret: secret, userID: grantB.userID, grantID: grantB.grantID)
            }
            #expect(grantA.userID != grantB.userID)
            #expect(!"\(grantA)".contains(Base64URL.encode(grantA.boundSecret)))
        }
    }

    @Test func pepperRotationKeepsOldTokensAndHashesNewOnesWithTheNewPepper() async throws {
        let oldSecrets = OAuthSecrets.random()
        let harness = try await OAuthHarness.start(secrets: oldSecrets)
        let tokens = try await harness.connect()
        await harness.stop(removeFiles: false)
        var rotated = oldSecrets
        rotated.previousPepper = oldSecrets.currentPepper
        rotated.currentPepper = .init(version: 2, key: .random())
        try await withHarnessReopening(harness, secrets: rotated) { h in
            #expect(try await h.mcp(tokens.accessToken).status == 200, "old pepper still validates")
            let next = try Tokens(
                try await h.refresh(try #require(tokens.refreshToken), clientID: tokens.clientID),
                clientID: tokens.clientID)
            #expect(try await h.mcp(next.accessToken).status == 200)
            let hash = TokenHasher(secrets: rotated).hash(next.accessToken)
            #expect(hash.version == 2)
            let item = try #require(try await h.store.get(OAuthKeys.accessToken(hash.hash)))
            #expect(item.attributes["pv"] == 2)
        }
    }

    @Test func replaceSealedIsACompareAndSwap() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            let grant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(tokens.accessToken))
            let newVersion = try #require(
                try await h.oauth.replaceSealed(
                    grantID: grant.grantID, expectedVersion: grant.grantVersion, sealed: [1, 2, 3]))
            #expect(
                try await h.oauth.replaceSealed(
                    grantID: grant.grantID, expectedVersion: grant.grantVersion, sealed: [9]) == nil)
            let current = try #require(try await h.oauth.sealedToken(grantID: grant.grantID))
            #expect(current.sealed == [1, 2, 3])
            #expect(current.version == newVersion)
            let after = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(tokens.accessToken))
            #expect(after.sealed == [1, 2, 3])
            // A refresh racing a re-seal still succeeds (it retries on the new version).
            #expect(try await h.refresh(try #require(tokens.refreshToken), clientID: tokens.clientID).status == 200)
        }
    }
}

/// Reopens a stopped harness's SQLite file with other secrets.
func withHarnessReopening(
    _ old: OAuthHarness, secrets: OAuthSecrets, _ body: (OAuthHarness) async throws -> Void
) async throws {
    let harness = try await OAuthHarness.start(secrets: secrets, directory: old.directory)
    harness.clock.set(to: old.clock.now())
    try await withCleanup {
        try await body(harness)
    } cleanup: {
        await harness.stop()
    }
}
