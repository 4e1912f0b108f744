import Foundation
import RelayHTTP
import RelayJSON
import Testing

@testable import RelayOAuth

/// Redirect URI paths that could mean something else to the client's server than to the allowlist
/// (an escaped `/` or `\` inside a wildcard segment, double escapes, escaped controls, dot segments in
/// every spelling) are refused at registration, in metadata documents and at `/authorize`.
struct RedirectPathEndpointTests {
    /// Each of these would otherwise match `https://chatgpt.com/connector/oauth/*` (one segment) or a
    /// loopback `**` pattern.
    static let misleading = [
        "https://chatgpt.com/connector/oauth/a%2Fb", "https://chatgpt.com/connector/oauth/a%2fb",
        "https://chatgpt.com/connector/oauth/%2F", "https://chatgpt.com/connector/oauth/a%5Cb",
        "https://chatgpt.com/connector/oauth/a%5cb", "https://chatgpt.com/connector/oauth/a%252Fb",
        "https://chatgpt.com/connector/oauth/a%25", "https://chatgpt.com/connector/oauth/a%00",
        "https://chatgpt.com/connector/oauth/a%0d%0a", "https://chatgpt.com/connector/oauth/a%7F",
        "https://chatgpt.com/connector/oauth/..;", "https://chatgpt.com/connector/oauth/..;x",
        "https://chatgpt.com/connector/oauth/.;", "https://chatgpt.com/connector/oauth/%2e%2E;a",
        "https://chatgpt.com/connector/oauth/%2E%2E", "https://chatgpt.com/connector/oauth/.%2e",
        "https://chatgpt.com/connector/oauth/..", "http://127.0.0.1:9000/cb/..%2F..%2Fadmin",
        "http://localhost:9000/a%2F..%2F..%2Fb", "http://[::1]:9000/a%5C..%5Cb",
    ]

    @Test(arguments: misleading)
    func thePolicyRefusesMisleadingPaths(uri: String) {
        let policy = RedirectURIPolicy(allowlist: RedirectAllowlist()!, maximumCount: 10)
        guard case .refused = policy.verdict(uri) else {
            Issue.record("\(uri) was not refused: \(policy.verdict(uri))")
            return
        }
        #expect(RedirectURIPolicy.match(requested: uri, registered: [uri]) == nil)
        #expect(RedirectURIPolicy.match(requested: nil, registered: [uri]) == nil)
    }

    @Test func escapesThatChangeNothingStayAllowed() {
        let policy = RedirectURIPolicy(allowlist: RedirectAllowlist()!, maximumCount: 10)
        for uri in [
            "https://chatgpt.com/connector/oauth/a%20b", "https://chatgpt.com/connector/oauth/a.b",
            "https://chatgpt.com/connector/oauth/...", "https://chatgpt.com/connector/oauth/a;b",
            "http://127.0.0.1:9000/cb?next=%2Fhome%5C", "https://chatgpt.com/connector/oauth/%41",
        ] {
            #expect(policy.verdict(uri) == .allowed, "\(uri)")
        }
    }

    @Test func registrationRefusesThemWithInvalidRedirectURI() async throws {
        let generous: (inout OAuthConfiguration) -> Void = {
            $0.registrationRateLimit = .init(requests: 1000, window: .seconds(3600))
        }
        try await withHarness(configure: generous) { h in
            for uri in Self.misleading {
                let response = try await h.client.postJSON("/register", "{\"redirect_uris\":[\"\(uri)\"]}")
                #expect(response.status == 400, "\(uri)")
                let error = try JSONValue(parsing: response.body)
                #expect(error["error"]?.stringValue == "invalid_redirect_uri", "\(uri)")
                // One bad URI refuses the whole list, even next to a good one.
                let mixed = try await h.client.postJSON(
                    "/register", "{\"redirect_uris\":[\"\(OAuthHarness.claudeRedirect)\",\"\(uri)\"]}")
                #expect(mixed.status == 400, "\(uri)")
            }
            let plain = try await h.client.postJSON(
                "/register", "{\"redirect_uris\":[\"https://chatgpt.com/connector/oauth/abc\"]}")
            #expect(plain.status == 201)
        }
    }

    @Test func aMetadataDocumentListingOneIsRefusedAtAuthorize() async throws {
        try await withHarness { h in
            let url = "https://chatgpt.com/oauth/abc123/client.json"
            h.fetcher.serve(
                url,
                json: """
                    {"client_id":"\(url)","client_name":"ChatGPT",\
                    "redirect_uris":["https://chatgpt.com/connector/oauth/a%2Fb"],"token_endpoint_auth_method":"none"}
                    """)
            let page = try await h.client.get(
                OAuthHarness.authorizePath(
                    clientID: url, verifier: OAuthHarness.newVerifier(),
                    redirectURI: "https://chatgpt.com/connector/oauth/a%2Fb"))
            #expect(page.status == 400)
            #expect(page.header("location") == nil, "never a redirect to the refused URI")
        }
    }

    @Test func aClientRegisteredBeforeTheRuleCannotUseSuchAURIAtAuthorize() async throws {
        try await withHarness { h in
            let uri = "https://chatgpt.com/connector/oauth/a%2F..%2Fb"
            let client = RegisteredClient(
                id: "old-client-registered-earlier", source: .registration, name: "Old", redirectURIs: [uri],
                authMethod: .none, grantTypes: ["authorization_code", "refresh_token"], scope: nil, secretHash: nil,
                secretPepperVersion: nil, issuedAt: 0)
            _ = try await h.store.put(OAuthKeys.client(client.id), attributes: client.attributes)
            for redirect in [uri, nil] {
                let page = try await h.client.get(
                    OAuthHarness.authorizePath(
                        clientID: client.id, verifier: OAuthHarness.newVerifier(), redirectURI: redirect))
                #expect(page.status == 400, "\(redirect ?? "no redirect_uri")")
                #expect(page.header("location") == nil)
            }
            // The same record with a plain URI works, so the refusal above is the path rule.
            var plain = client
            plain.redirectURIs = ["https://chatgpt.com/connector/oauth/abc"]
            _ = try await h.store.put(OAuthKeys.client(client.id), attributes: plain.attributes)
            let page = try await h.client.get(
                OAuthHarness.authorizePath(
                    clientID: client.id, verifier: OAuthHarness.newVerifier(),
                    redirectURI: "https://chatgpt.com/connector/oauth/abc"))
            #expect(page.status == 200)
        }
    }
}
