import Foundation
import RelayHTTP
import RelayJSON
import Testing

@testable import RelayOAuth

/// `grant_type=authorization_code`: verification before any side effect, single use, replay
/// revocation, PKCE rules, client binding, concurrency.
struct CodeExchangeTests {
    static func error(_ response: TestResponse) -> String? {
        try? JSONValue(parsing: response.body)["error"]?.stringValue
    }

    /// A registered public client with a fresh code: (client ID, verifier, code).
    static func fresh(_ h: OAuthHarness, method: String = "none") async throws -> (String, String, String, String?) {
        let client = try await h.register(method: method)
        let verifier = OAuthHarness.newVerifier()
        return (client.id, verifier, try await h.code(clientID: client.id, verifier: verifier), client.secret)
    }

    @Test func failedVerificationDoesNotConsumeTheCode() async throws {
        try await withHarness { h in
            let (client, verifier, code, _) = try await Self.fresh(h)
            let wrongVerifier = try await h.exchange(code: code, verifier: OAuthHarness.newVerifier(), clientID: client)
            #expect(wrongVerifier.status == 400)
            #expect(Self.error(wrongVerifier) == "invalid_grant")
            let wrongRedirect = try await h.exchange(
                code: code, verifier: verifier, clientID: client,
                redirectURI: "https://claude.com/api/mcp/auth_callback")
            #expect(Self.error(wrongRedirect) == "invalid_grant")
            let missingRedirect = try await h.exchange(
                code: code, verifier: verifier, clientID: client, redirectURI: nil)
            #expect(Self.error(missingRedirect) == "invalid_grant", "the authorize request named it, so /token must")
            let wrongResource = try await h.exchange(
                code: code, verifier: verifier, clientID: client, extra: [("resource", "https://other.example/mcp")])
            #expect(Self.error(wrongResource) == "invalid_target")
            let noVerifier = try await h.client.postForm(
                "/token",
                [
                    ("grant_type", "authorization_code"), ("code", code), ("client_id", client),
                    ("redirect_uri", OAuthHarness.claudeRedirect),
                ])
            #expect(Self.error(noVerifier) == "invalid_request")
            // Another client presenting the code: no effect at all.
            let other = try await h.register()
            let stolen = try await h.exchange(code: code, verifier: verifier, clientID: other.id)
            #expect(Self.error(stolen) == "invalid_grant")
            // After all that, the right request still redeems the code.
            let good = try await h.exchange(code: code, verifier: verifier, clientID: client)
            #expect(good.status == 200)
            #expect(h.recordedEvents.filter { if case .grantRevoked = $0 { true } else { false } }.isEmpty)
        }
    }

    @Test func badConfidentialCredentialsDoNotConsumeTheCode() async throws {
        try await withHarness { h in
            let (client, verifier, code, secret) = try await Self.fresh(h, method: "client_secret_post")
            let bad = try await h.exchange(
                code: code, verifier: verifier, clientID: client, extra: [("client_secret", "mdr_cs_wrong")])
            #expect(bad.status == 401)
            #expect(Self.error(bad) == "invalid_client")
            #expect(bad.header("www-authenticate")?.hasPrefix("Basic") == true)
            let good = try await h.exchange(
                code: code, verifier: verifier, clientID: client, extra: [("client_secret", try #require(secret))])
            #expect(good.status == 200)
        }
    }

    @Test func replayOfARedeemedCodeRevokesTheGrant() async throws {
        try await withHarness { h in
            let (client, verifier, code, _) = try await Self.fresh(h)
            let first = try await h.exchange(code: code, verifier: verifier, clientID: client)
            let tokens = try Tokens(first, clientID: client)
            #expect(try await h.mcp(tokens.accessToken).status == 200)
            let replay = try await h.exchange(code: code, verifier: verifier, clientID: client)
            #expect(replay.status == 400)
            #expect(Self.error(replay) == "invalid_grant")
            #expect(try await h.mcp(tokens.accessToken).status == 401, "tokens from the first exchange are revoked")
            #expect(
                Self.error(try await h.refresh(try #require(tokens.refreshToken), clientID: client)) == "invalid_grant")
            #expect(h.recordedEvents.contains { if case .codeReplay = $0 { true } else { false } })
        }
    }

    @Test func unverifiedReplayDoesNotRevoke() async throws {
        try await withHarness { h in
            let (client, verifier, code, _) = try await Self.fresh(h)
            let tokens = try Tokens(
                try await h.exchange(code: code, verifier: verifier, clientID: client), clientID: client)
            // Someone holding only the code (no verifier) cannot turn it into a revocation.
            let attempt = try await h.exchange(code: code, verifier: OAuthHarness.newVerifier(), clientID: client)
            #expect(Self.error(attempt) == "invalid_grant")
            #expect(try await h.mcp(tokens.accessToken).status == 200)
        }
    }

    @Test func expiredCodeIsRefused() async throws {
        try await withHarness { h in
            let (client, verifier, code, _) = try await Self.fresh(h)
            h.clock.advance(by: 301)
            #expect(
                Self.error(try await h.exchange(code: code, verifier: verifier, clientID: client)) == "invalid_grant")
        }
    }

    @Test func pkceVerifierShapes() async throws {
        try await withHarness { h in
            let (client, _, code, _) = try await Self.fresh(h)
            for verifier in [
                String(repeating: "a", count: 42), String(repeating: "a", count: 129),
                String(repeating: "a", count: 40) + "+++",
            ] {
                #expect(
                    Self.error(try await h.exchange(code: code, verifier: verifier, clientID: client))
                        == "invalid_grant")
            }
        }
    }

    @Test func garbageAndUnknownCodesAreInvalidGrant() async throws {
        try await withHarness { h in
            let client = try await h.register()
            for code in ["garbage", "mdr_ac_" + String(repeating: "A", count: 49), TokenKind.code.generate()] {
                let response = try await h.exchange(
                    code: code, verifier: OAuthHarness.newVerifier(), clientID: client.id)
                #expect(Self.error(response) == "invalid_grant")
            }
        }
    }

    @Test func concurrentRedemptionHasExactlyOneWinner() async throws {
        try await withHarness { h in
            let (client, verifier, code, _) = try await Self.fresh(h)
            let responses = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await h.exchange(code: code, verifier: verifier, clientID: client) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.filter { $0.status == 200 }.count == 1)
            #expect(responses.filter { Self.error($0) == "invalid_grant" }.count == 9)
            #expect(responses.allSatisfy { $0.status == 200 || $0.status == 400 }, "never a 500")
        }
    }

    @Test func unknownClientIs401InvalidClient() async throws {
        try await withHarness { h in
            let response = try await h.exchange(
                code: TokenKind.code.generate(), verifier: OAuthHarness.newVerifier(), clientID: "unknown")
            #expect(response.status == 401)
            #expect(Self.error(response) == "invalid_client")
            #expect(response.header("www-authenticate") != nil)
            #expect(response.header("cache-control") == "no-store")
        }
    }

    @Test func authenticationMethodIsEnforcedAsRegistered() async throws {
        try await withHarness { h in
            let basic = try await h.register(method: "client_secret_basic")
            let post = try await h.register(method: "client_secret_post")
            let none = try await h.register(method: "none")
            func basicHeader(_ id: String, _ secret: String) -> (String, String) {
                ("Authorization", "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString())
            }
            let code = TokenKind.code.generate()
            let verifier = OAuthHarness.newVerifier()
            // basic client using post, post client using basic, none client sending a secret: 401.
            let cases: [TestResponse] = [
                try await h.exchange(
                    code: code, verifier: verifier, clientID: basic.id, extra: [("client_secret", basic.secret!)]),
                try await h.client.postForm(
                    "/token", [("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier)],
                    headers: [basicHeader(post.id, post.secret!)]),
                try await h.exchange(
                    code: code, verifier: verifier, clientID: none.id, extra: [("client_secret", "x")]),
                try await h.client.postForm(
                    "/token", [("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier)],
                    headers: [basicHeader(basic.id, "wrong")]),
                try await h.exchange(code: code, verifier: verifier, clientID: post.id),
            ]
            for response in cases {
                #expect(response.status == 401)
                #expect(Self.error(response) == "invalid_client")
            }
            // The right methods get past client authentication (to invalid_grant for this fake code).
            let rightBasic = try await h.client.postForm(
                "/token", [("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier)],
                headers: [basicHeader(basic.id, basic.secret!)])
            #expect(Self.error(rightBasic) == "invalid_grant")
            let rightPost = try await h.exchange(
                code: code, verifier: verifier, clientID: post.id, extra: [("client_secret", post.secret!)])
            #expect(Self.error(rightPost) == "invalid_grant")
        }
    }

    @Test func basicSecretClientCompletesTheFlow() async throws {
        try await withHarness { h in
            let client = try await h.register(method: "client_secret_basic")
            let verifier = OAuthHarness.newVerifier()
            let code = try await h.code(clientID: client.id, verifier: verifier)
            let credentials = "\(FormDecoding.encode(client.id)):\(FormDecoding.encode(client.secret!))"
            let response = try await h.client.postForm(
                "/token",
                [
                    ("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier),
                    ("redirect_uri", OAuthHarness.claudeRedirect),
                ],
                headers: [("Authorization", "basic " + Data(credentials.utf8).base64EncodedString())])
            #expect(response.status == 200)
        }
    }

    @Test func malformedRequestsAreRefused() async throws {
        try await withHarness { h in
            let client = try await h.register()
            let repeated = try await h.client.postForm(
                "/token",
                [("grant_type", "authorization_code"), ("code", "a"), ("code", "b"), ("client_id", client.id)])
            #expect(Self.error(repeated) == "invalid_request")
            let wrongType = try await h.client.send(
                "POST", "/token", headers: [("Content-Type", "application/x-www-form-urlencoded-evil")],
                body: Array("grant_type=refresh_token&client_id=\(client.id)".utf8))
            #expect(Self.error(wrongType) == "invalid_request")
            let withCharset = try await h.client.send(
                "POST", "/token", headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")],
                body: Array("grant_type=password&client_id=\(client.id)".utf8))
            #expect(Self.error(withCharset) == "unsupported_grant_type")
            let json = try await h.client.postJSON("/token", "{}")
            #expect(Self.error(json) == "invalid_request")
        }
    }

    @Test func clientWithoutRefreshGrantGetsNoRefreshToken() async throws {
        try await withHarness { h in
            let client = try await h.register(extra: #","grant_types":["authorization_code"]"#)
            let tokens = try await h.connect(clientID: client.id)
            #expect(tokens.refreshToken == nil)
        }
    }

    @Test func loopbackRedirectOnAnyPortWorksAtTokenToo() async throws {
        try await withHarness { h in
            let client = try await h.register(redirectURIs: ["http://localhost/callback"])
            let verifier = OAuthHarness.newVerifier()
            let code = try await h.code(
                clientID: client.id, verifier: verifier, redirectURI: "http://localhost:49152/callback")
            let otherPort = try await h.exchange(
                code: code, verifier: verifier, clientID: client.id, redirectURI: "http://localhost:49153/callback")
            #expect(Self.error(otherPort) == "invalid_grant", "the token request must repeat the exact URI")
            let same = try await h.exchange(
                code: code, verifier: verifier, clientID: client.id, redirectURI: "http://localhost:49152/callback")
            #expect(same.status == 200)
        }
    }
}
