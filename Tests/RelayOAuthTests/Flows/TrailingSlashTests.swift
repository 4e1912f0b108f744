import RelayJSON
import Testing

@testable import RelayOAuth

/// A person who types the MCP URL with a trailing slash (`…/mcp/`): the challenge names the
/// metadata of that URL, the metadata's `resource` is that URL (RFC 9728 §3.3: identical to
/// the URL the client used; VS Code compares them exactly), both spellings are one audience at
/// `/authorize` and `/token`, and a token issued for either works on both paths.
struct TrailingSlashTests {
    static let slashed = OAuthHarness.issuer + "/mcp/"
    static let plain = OAuthHarness.issuer + "/mcp"

    @Test func metadataAndChallengeFollowWhatWasTyped() async throws {
        try await withHarness { h in
            let typed = try await h.client.get("/.well-known/oauth-protected-resource/mcp/")
            #expect(typed.status == 200)
            #expect(typed.header("access-control-allow-origin") == "*")
            let document = try JSONValue(parsing: typed.body)
            #expect(document["resource"]?.stringValue == Self.slashed)
            let plain = try JSONValue(parsing: try await h.client.get("/.well-known/oauth-protected-resource/mcp").body)
            #expect(plain["resource"]?.stringValue == Self.plain)
            #expect(document["authorization_servers"] == plain["authorization_servers"])
            #expect(document["scopes_supported"] == plain["scopes_supported"])
            let preflight = try await h.client.send("OPTIONS", "/.well-known/oauth-protected-resource/mcp/")
            #expect(preflight.status == 204)

            for (path, metadata) in [("/mcp/", "/mcp/"), ("/mcp", "/mcp")] {
                let expected =
                    "resource_metadata=\"\(OAuthHarness.issuer)/.well-known/oauth-protected-resource\(metadata)\""
                let anonymous = try await h.client.send("POST", path)
                #expect(anonymous.status == 401)
                #expect(anonymous.header("www-authenticate")?.contains(expected) == true, "\(path)")
                let forged = try await h.client.send(
                    "POST", path, headers: [("Authorization", "Bearer " + TokenKind.accessToken.generate())])
                #expect(forged.status == 401)
                #expect(forged.header("www-authenticate")?.contains(expected) == true, "\(path)")
                #expect(forged.header("www-authenticate")?.contains("error=\"invalid_token\"") == true)
            }
        }
    }

    @Test(arguments: [slashed, plain])
    func aTokenForEitherSpellingWorksOnBothPaths(resource: String) async throws {
        try await withHarness { h in
            let client = try await h.register().id
            let verifier = OAuthHarness.newVerifier()
            let callback = try await h.signIn(
                browser: h.browser(),
                authorizePath: OAuthHarness.authorizePath(
                    clientID: client, verifier: verifier, extra: [("resource", resource)]))
            let code = try #require(callback.locationQuery["code"]?.first)
            // The token request may name the other spelling: it is the same audience.
            let other = resource == Self.slashed ? Self.plain : Self.slashed
            let exchange = try await h.exchange(
                code: code, verifier: verifier, clientID: client, extra: [("resource", other)])
            #expect(exchange.status == 200, "\(exchange.text)")
            let tokens = try Tokens(exchange, clientID: client)
            for path in ["/mcp", "/mcp/"] {
                let answer = try await h.client.send(
                    "POST", path, headers: [("Authorization", "Bearer " + tokens.accessToken)])
                #expect(answer.status == 200, "\(path): \(answer.text)")
            }
            let refresh = try #require(tokens.refreshToken)
            let refreshed = try await h.refresh(refresh, clientID: client, extra: [("resource", resource)])
            #expect(refreshed.status == 200, "\(refreshed.text)")
        }
    }

    @Test func anotherPathIsAnotherAudience() async throws {
        try await withHarness { h in
            let client = try await h.register().id
            let page = try await h.browser().get(
                OAuthHarness.authorizePath(
                    clientID: client, verifier: OAuthHarness.newVerifier(),
                    extra: [("resource", OAuthHarness.issuer + "/mcp/other")]))
            #expect(page.status == 302, "refused back to the client")
            #expect(page.header("location")?.contains("error=invalid_target") == true)
        }
    }
}
