import Foundation
import RelayCrypto
import RelayHTTP
import RelayJSON
import Testing

@testable import RelayOAuth

/// Issue 41: scopes the server does not offer are dropped at `/authorize` (RFC 6749 §3.3) and the
/// token response names what was granted; a JWT client assertion without `client_id` (RFC 7523
/// §3) names the client.
struct ScopeDropAndAssertionTests {
    static func assertion(iss: String, sub: String) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(Array("{\"iss\":\"\(iss)\",\"sub\":\"\(sub)\",\"aud\":\"x\"}".utf8))
        return header + "." + payload + ".c2lnbmF0dXJl"
    }

    @Test func openIDScopesAreDroppedAndTheGrantedScopeIsNamed() async throws {
        try await withHarness { h in
            let client = try await h.register()
            let verifier = OAuthHarness.newVerifier()
            let page = try await h.browser().get(
                OAuthHarness.authorizePath(
                    clientID: client.id, verifier: verifier,
                    extra: [("scope", "openid profile email mcp todos:read offline_access")]))
            #expect(page.status == 200, "no invalid_scope: \(page.header("location") ?? "")")
            let response = try await h.signIn(
                browser: h.browser(),
                authorizePath: OAuthHarness.authorizePath(
                    clientID: client.id, verifier: verifier, extra: [("scope", "openid profile email mcp todos:read")]))
            let code = try #require(response.locationQuery["code"]?.first)
            let tokens = try await h.exchange(code: code, verifier: verifier, clientID: client.id)
            #expect(tokens.status == 200)
            #expect(try JSONValue(parsing: tokens.body)["scope"] == "todos:read")
            // Only unknown scopes: the default, every scope.
            let onlyOpenID = try await h.browser().get(
                OAuthHarness.authorizePath(
                    clientID: client.id, verifier: OAuthHarness.newVerifier(), extra: [("scope", "openid")]))
            #expect(onlyOpenID.status == 200)
        }
    }

    @Test func anAssertionWithoutClientIDNamesTheClient() async throws {
        try await withHarness { h in
            let client = try await h.register()
            let verifier = OAuthHarness.newVerifier()
            let code = try await h.code(clientID: client.id, verifier: verifier)
            let type = ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            let base = [
                ("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier),
                ("redirect_uri", OAuthHarness.claudeRedirect), type,
            ]
            let mismatched = try await h.client.postForm(
                "/token", base + [("client_assertion", Self.assertion(iss: client.id, sub: "someone-else"))])
            #expect(mismatched.status == 401)
            let garbage = try await h.client.postForm("/token", base + [("client_assertion", "not.a.jwt")])
            #expect(garbage.status == 401)
            let response = try await h.client.postForm(
                "/token", base + [("client_assertion", Self.assertion(iss: client.id, sub: client.id))])
            #expect(response.status == 200, "\(response.text)")
            #expect(try JSONValue(parsing: response.body)["scope"] == "todos:read todos:write")
        }
    }
}
