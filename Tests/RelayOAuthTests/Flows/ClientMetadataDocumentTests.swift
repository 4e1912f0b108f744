import Foundation
import RelayHTTP
import RelayJSON
import Testing

@testable import RelayOAuth

/// Client ID metadata documents: URL shape, document rules, the cache, and the whole flow with a
/// document-identified client.
struct ClientMetadataDocumentTests {
    static let claudeURL = "https://claude.ai/oauth/mcp-oauth-client-metadata"
    static let claudeDocument = """
        {"client_id":"https://claude.ai/oauth/mcp-oauth-client-metadata","client_name":"Claude","client_uri":"https://claude.ai",\
        "redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"grant_types":["authorization_code","refresh_token"],\
        "response_types":["code"],"token_endpoint_auth_method":"none"}
        """
    static let chatGPTURL = "https://chatgpt.com/oauth/abc123/client.json"
    static let chatGPTDocument = """
        {"client_id":"https://chatgpt.com/oauth/abc123/client.json","client_name":"ChatGPT",\
        "redirect_uris":["https://chatgpt.com/connector/oauth/abc123"],"grant_types":["authorization_code","refresh_token"],\
        "response_types":["code"],"token_endpoint_auth_method":"private_key_jwt","jwks_uri":"https://chatgpt.com/oauth/jwks.json"}
        """

    let redirects = RedirectURIPolicy(allowlist: RedirectAllowlist()!, maximumCount: 10)

    func judge(_ json: String, url: String = claudeURL, status: Int = 200, contentType: String = "application/json")
        -> Result<RegisteredClient, OAuthError>
    {
        ClientMetadataPolicy.client(
            from: FetchedDocument(status: status, headers: ["Content-Type": contentType], body: Array(json.utf8)),
            url: url,
            redirects: redirects, supportedScopes: ["todos:read", "todos:write"], now: 0)
    }

    @Test func urlShape() {
        #expect(ClientMetadataPolicy.isDocumentURL(Self.claudeURL, allowLoopback: false))
        #expect(ClientMetadataPolicy.isDocumentURL(Self.chatGPTURL, allowLoopback: false))
        for notDocument in [
            "http://claude.ai/oauth/x", "https://claude.ai", "https://claude.ai/", "https://claude.ai?x=/a/b",
            "https://claude.ai/a#f", "https://u@claude.ai/a", "https://claude.ai/a/../b", "plain-client-id",
            "http://127.0.0.1:9/doc",
        ] {
            #expect(!ClientMetadataPolicy.isDocumentURL(notDocument, allowLoopback: false), "\(notDocument)")
        }
        #expect(ClientMetadataPolicy.isDocumentURL("http://127.0.0.1:9/doc", allowLoopback: true))
        #expect(!ClientMetadataPolicy.isDocumentURL("http://example.com/doc", allowLoopback: true))
    }

    @Test func liveDocumentShapesNegotiate() throws {
        let claude = try judge(Self.claudeDocument).get()
        #expect(claude.authMethod == .none)
        #expect(claude.source == .metadataDocument)
        #expect(claude.name == "Claude")
        let chatGPT = try judge(Self.chatGPTDocument, url: Self.chatGPTURL).get()
        #expect(chatGPT.authMethod == .none, "private_key_jwt is negotiated down to a public client")
        #expect(chatGPT.redirectURIs == ["https://chatgpt.com/connector/oauth/abc123"])
    }

    @Test func documentRefusals() {
        func refused(_ json: String, url: String = Self.claudeURL, status: Int = 200, type: String = "application/json")
            -> Bool
        {
            if case .failure(let error) = judge(json, url: url, status: status, contentType: type) {
                return error.code == .invalidClient
            }
            return false
        }
        let base = #""redirect_uris":["https://claude.ai/api/mcp/auth_callback"]"#
        #expect(refused("{\"client_id\":\"https://claude.ai/oauth/other\",\(base)}"))
        #expect(refused("{\(base)}"))
        #expect(refused(Self.claudeDocument, status: 404))
        #expect(refused(Self.claudeDocument, status: 500))
        #expect(refused(Self.claudeDocument, status: 301))
        #expect(refused(Self.claudeDocument, type: "text/html"))
        #expect(!refused(Self.claudeDocument, type: "application/json; charset=utf-8"))
        #expect(refused("[1]"))
        #expect(refused(String(repeating: " ", count: 5200) + Self.claudeDocument))
        let id = "\"client_id\":\"\(Self.claudeURL)\""
        #expect(refused("{\(id),\(base),\"token_endpoint_auth_method\":\"client_secret_post\"}"))
        #expect(refused("{\(id),\(base),\"token_endpoint_auth_method\":\"client_secret_basic\"}"))
        #expect(refused("{\(id),\(base),\"token_endpoint_auth_method\":\"client_secret_jwt\"}"))
        #expect(refused("{\(id),\(base),\"client_secret\":\"s\"}"))
        #expect(refused("{\(id),\(base),\"jwks\":{\"keys\":[{\"kty\":\"EC\",\"d\":\"private\"}]}}"))
        #expect(!refused("{\(id),\(base),\"jwks\":{\"keys\":[{\"kty\":\"EC\",\"x\":\"public\"}]}}"))
        #expect(refused("{\(id),\"redirect_uris\":[]}"))
        #expect(refused("{\(id)}"))
        #expect(refused("{\(id),\"redirect_uris\":[\"javascript:alert(1)\"]}"))
        #expect(refused("{\(id),\"redirect_uris\":[\"https://evil.example/cb\"]}"))
    }

    @Test func cacheLifetimeFollowsHeadersWithinTheCap() {
        #expect(ClientMetadataPolicy.cacheSeconds(["Cache-Control": "max-age=600"], maximum: 86400) == 600)
        #expect(ClientMetadataPolicy.cacheSeconds(["Cache-Control": "public, max-age=999999"], maximum: 86400) == 86400)
        #expect(ClientMetadataPolicy.cacheSeconds(["Cache-Control": "no-store"], maximum: 86400) == 0)
        #expect(ClientMetadataPolicy.cacheSeconds(["Cache-Control": "no-cache, max-age=60"], maximum: 86400) == 0)
        #expect(ClientMetadataPolicy.cacheSeconds([:], maximum: 86400) == 300)
    }

    @Test func documentClientConnectsEndToEndAndIsCached() async throws {
        try await withHarness { h in
            h.fetcher.serve(
                Self.claudeURL, json: Self.claudeDocument,
                headers: ["Content-Type": "application/json", "Cache-Control": "max-age=3600"])
            let verifier = OAuthHarness.newVerifier()
            let browser = h.browser()
            let page = try await browser.get(OAuthHarness.authorizePath(clientID: Self.claudeURL, verifier: verifier))
            #expect(page.status == 200)
            #expect(page.text.contains("published at <span class=host>claude.ai</span>"))
            let callback = try await h.signIn(
                browser: browser,
                authorizePath: OAuthHarness.authorizePath(clientID: Self.claudeURL, verifier: verifier))
            let code = try #require(callback.locationQuery["code"]?.first)
            let tokens = try await h.exchange(code: code, verifier: verifier, clientID: Self.claudeURL)
            #expect(tokens.status == 200)
            #expect(h.fetcher.fetchCount == 1, "authorize (twice) and token used the cached document")
            h.clock.advance(by: 3601)
            _ = try await h.browser().get(OAuthHarness.authorizePath(clientID: Self.claudeURL, verifier: verifier))
            #expect(h.fetcher.fetchCount == 2, "expired from the cache, fetched again")
        }
    }

    @Test func changedDocumentIsFetchedAgainWithinTheSameRequest() async throws {
        try await withHarness { h in
            h.fetcher.serve(
                Self.claudeURL, json: Self.claudeDocument,
                headers: ["Content-Type": "application/json", "Cache-Control": "max-age=3600"])
            _ = try await h.browser().get(
                OAuthHarness.authorizePath(clientID: Self.claudeURL, verifier: OAuthHarness.newVerifier()))
            // The client now publishes a second redirect URI; the cached copy does not have it.
            h.fetcher.serve(
                Self.claudeURL,
                json: Self.claudeDocument.replacingOccurrences(
                    of: "[\"https://claude.ai/api/mcp/auth_callback\"]",
                    with: "[\"https://claude.ai/api/mcp/auth_callback\",\"https://claude.com/api/mcp/auth_callback\"]"))
            let page = try await h.browser().get(
                OAuthHarness.authorizePath(
                    clientID: Self.claudeURL, verifier: OAuthHarness.newVerifier(),
                    redirectURI: "https://claude.com/api/mcp/auth_callback"))
            #expect(page.status == 200)
            #expect(h.fetcher.fetchCount == 2)
        }
    }

    @Test func unreachableOrRefusedDocumentsAreLocalErrorsAndInvalidClient() async throws {
        try await withHarness { h in
            let missing = try await h.client.get(
                OAuthHarness.authorizePath(
                    clientID: "https://nowhere.example/client.json", verifier: OAuthHarness.newVerifier()))
            #expect(missing.status == 400)
            #expect(missing.header("location") == nil)
            h.fetcher.serve("https://bad.example/client.json", json: Self.claudeDocument)
            let mismatch = try await h.client.get(
                OAuthHarness.authorizePath(
                    clientID: "https://bad.example/client.json", verifier: OAuthHarness.newVerifier()))
            #expect(mismatch.status == 400)
            let token = try await h.exchange(
                code: TokenKind.code.generate(), verifier: OAuthHarness.newVerifier(),
                clientID: "https://nowhere.example/client.json")
            // At /token a document client whose host fails, with no copy, is taken as the public
            // client every document client is (so existing connections survive a vendor's outage):
            // a code never issued to it is then refused as a grant, not as a client.
            #expect(token.status == 400)
            #expect(try JSONValue(parsing: token.body)["error"] == "invalid_grant")
        }
    }
}
