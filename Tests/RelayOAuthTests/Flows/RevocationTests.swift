import Testing

@testable import RelayOAuth

/// RFC 7009 revocation: always 200, only the client's own tokens, the prefix decides the kind.
struct RevocationTests {
    func revoke(_ h: OAuthHarness, _ token: String, clientID: String, hint: String? = nil) async throws -> TestResponse
    {
        var pairs = [("token", token), ("client_id", clientID)]
        if let hint { pairs.append(("token_type_hint", hint)) }
        return try await h.client.postForm("/revoke", pairs)
    }

    @Test func revokingAnAccessTokenLeavesTheRefreshToken() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            let response = try await revoke(h, tokens.accessToken, clientID: tokens.clientID, hint: "refresh_token")
            #expect(response.status == 200)
            #expect(response.header("cache-control") == "no-store")
            #expect(try await h.mcp(tokens.accessToken).status == 401)
            #expect(try await h.refresh(try #require(tokens.refreshToken), clientID: tokens.clientID).status == 200)
        }
    }

    @Test func revokingTheRefreshTokenRevokesTheGrant() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            #expect(
                try await revoke(h, try #require(tokens.refreshToken), clientID: tokens.clientID, hint: "access_token")
                    .status == 200)
            #expect(try await h.mcp(tokens.accessToken).status == 401)
        }
    }

    @Test func anotherClientCannotRevoke() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            let other = try await h.register()
            #expect(try await revoke(h, tokens.accessToken, clientID: other.id).status == 200)
            #expect(try await revoke(h, try #require(tokens.refreshToken), clientID: other.id).status == 200)
            #expect(try await h.mcp(tokens.accessToken).status == 200, "nothing happened")
        }
    }

    @Test func unknownAndGarbageTokensAre200ButClientsMustAuthenticate() async throws {
        try await withHarness { h in
            let client = try await h.register()
            #expect(try await revoke(h, "garbage", clientID: client.id).status == 200)
            #expect(try await revoke(h, TokenKind.accessToken.generate(), clientID: client.id).status == 200)
            #expect(try await revoke(h, "x", clientID: "unknown").status == 401)
            let missing = try await h.client.postForm("/revoke", [("client_id", client.id)])
            #expect(missing.status == 400)
        }
    }
}
