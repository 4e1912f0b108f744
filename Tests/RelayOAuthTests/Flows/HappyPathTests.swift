import RelayHTTP
import RelayJSON
import Testing

@testable import RelayOAuth

/// The whole connect flow through real sockets, the way an AI client and a browser drive it
/// (docs/oauth.md, in the order a connection meets its rules): 401 challenge, discovery, DCR, PKCE, consent, Apple sign-in,
/// callback, code exchange, MCP call, refresh, revocation.
struct HappyPathTests {
    @Test func aiClientAndBrowserConnectEndToEnd() async throws {
        try await withHarness { h in
            // 1. /mcp without a token: 401 pointing at the protected-resource metadata.
            let unauthenticated = try await h.client.send("POST", "/mcp")
            #expect(unauthenticated.status == 401)
            let challenge = try #require(unauthenticated.header("www-authenticate"))
            #expect(
                challenge
                    == "Bearer resource_metadata=\"https://relay.example/.well-known/oauth-protected-resource/mcp\", "
                    + "scope=\"todos:read todos:write\"")
            // 2. Discovery.
            let resource = try JSONValue(
                parsing: try await h.client.get("/.well-known/oauth-protected-resource/mcp").body)
            #expect(resource["resource"] == "https://relay.example/mcp")
            let issuer = try #require(resource["authorization_servers"]?.arrayValue?.first?.stringValue)
            let metadata = try JSONValue(
                parsing: try await h.client.get("/.well-known/oauth-authorization-server").body)
            #expect(metadata["issuer"]?.stringValue == issuer)
            #expect(metadata["registration_endpoint"] == "https://relay.example/register")
            // 3. DCR, public client.
            let registration = try await h.client.postJSON(
                "/register",
                #"{"client_name":"Claude","redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none"}"#
            )
            #expect(registration.status == 201)
            let clientID = try #require(try JSONValue(parsing: registration.body)["client_id"]?.stringValue)
            // 4-6. The browser: authorize, consent, Apple sign-in, callback → code with state and iss.
            let verifier = OAuthHarness.newVerifier()
            let browser = h.browser()
            let callback = try await h.signIn(
                browser: browser,
                authorizePath: OAuthHarness.authorizePath(
                    clientID: clientID, verifier: verifier, state: "state-123",
                    extra: [("resource", "https://relay.example/mcp"), ("scope", "todos:read todos:write")]))
            #expect(callback.status == 303)
            #expect(callback.header("referrer-policy") == "no-referrer")
            #expect(callback.header("cache-control") == "no-store")
            let location = try #require(callback.header("location"))
            #expect(location.hasPrefix("https://claude.ai/api/mcp/auth_callback?code=mdr_ac_"))
            #expect(callback.locationQuery["state"] == ["state-123"])
            #expect(callback.locationQuery["iss"] == ["https://relay.example"])
            #expect(callback.locationQuery["code"]?.count == 1)
            #expect(callback.locationQuery["code_challenge"] == nil)
            #expect(browser.cookies.isEmpty, "the binding cookie is cleared after the callback")
            let code = try #require(callback.locationQuery["code"]?.first)
            // 7. Code exchange.
            let exchanged = try await h.exchange(
                code: code, verifier: verifier, clientID: clientID, extra: [("resource", "https://relay.example/mcp")])
            #expect(exchanged.status == 200)
            #expect(exchanged.header("cache-control") == "no-store")
            #expect(exchanged.header("pragma") == "no-cache")
            #expect(exchanged.header("content-type") == "application/json")
            let tokens = try Tokens(exchanged, clientID: clientID)
            #expect(tokens.accessToken.hasPrefix("mdr_at_"))
            #expect(tokens.refreshToken?.hasPrefix("mdr_rt_") == true)
            #expect(tokens.expiresIn == 3600)
            #expect(tokens.scope == "todos:read todos:write")
            #expect(try JSONValue(parsing: exchanged.body)["token_type"] == "Bearer")
            // 8. The MCP call, and what RelayService gets: the sealed token opens with the bound secret.
            #expect(try await h.mcp(tokens.accessToken).status == 200)
            let request = OAuthHarness.bearerRequest(tokens.accessToken)
            let grant = try await h.oauth.validateBearer(request)
            #expect(grant.scopes == ["todos:read", "todos:write"])
            #expect(grant.userID == h.oauth.userID(recordName: h.signIn.recordName(for: "alice@example.com")))
            let secret = try h.oauth.grantSecret(for: grant, in: request)
            let webAuthToken = try FakeGrantSealer.open(
                grant.sealed, secret: secret, userID: grant.userID, grantID: grant.grantID)
            #expect(webAuthToken.hasPrefix("106__54__"))
            #expect(
                webAuthToken.contains("+") || webAuthToken.contains("/"), "the token's + and / survived the callback")
            // 10. Refresh, then the new access token works.
            let refreshed = try await h.refresh(try #require(tokens.refreshToken), clientID: clientID)
            #expect(refreshed.status == 200)
            let next = try Tokens(refreshed, clientID: clientID)
            #expect(next.refreshToken != tokens.refreshToken)
            #expect(try await h.mcp(next.accessToken).status == 200)
            // Revoke the refresh token: the whole grant goes.
            let revoked = try await h.client.postForm(
                "/revoke", [("token", try #require(next.refreshToken)), ("client_id", clientID)])
            #expect(revoked.status == 200)
            #expect(try await h.mcp(next.accessToken).status == 401)
            #expect(try await h.mcp(tokens.accessToken).status == 401)
        }
    }
}
