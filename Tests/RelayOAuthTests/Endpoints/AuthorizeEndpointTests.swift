import Foundation
import RelayHTTP
import RelayJSON
import Testing

@testable import RelayOAuth

/// `GET /authorize` over HTTP: local pages versus redirects, the consent page, its headers and
/// cookie.
struct AuthorizeEndpointTests {
    /// Every page's headers. Since issue 37 a page that starts or finishes an Apple sign-in carries
    /// one of `TabBinding`'s constant scripts, allowed by its hash and nothing else; no other script.
    static func expectPageHeaders(
        _ response: TestResponse, script: Bool? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.header("x-frame-options") == "DENY", sourceLocation: sourceLocation)
        let csp = response.header("content-security-policy") ?? ""
        #expect(csp.contains("default-src 'none'"), sourceLocation: sourceLocation)
        #expect(csp.contains("frame-ancestors 'none'"), sourceLocation: sourceLocation)
        #expect(csp.contains("base-uri 'none'"), sourceLocation: sourceLocation)
        #expect(csp.contains("style-src 'sha256-"), sourceLocation: sourceLocation)
        let known = [TabBinding.keepScript, TabBinding.finishScript]
        let scripts = csp.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("script-src") }
        #expect(
            scripts.isEmpty || known.contains { scripts == ["script-src \(TabBinding.hash($0))"] },
            "\(scripts)", sourceLocation: sourceLocation)
        if let script { #expect(scripts.isEmpty != script, sourceLocation: sourceLocation) }
        #expect(!csp.contains("unsafe-inline"), sourceLocation: sourceLocation)
        #expect(response.header("referrer-policy") == "no-referrer", sourceLocation: sourceLocation)
        #expect(response.header("cache-control") == "no-store", sourceLocation: sourceLocation)
        #expect(response.header("access-control-allow-origin") == nil, sourceLocation: sourceLocation)
        if response.status == 200 || response.status >= 400 {
            var text = response.text
            for script in known { text = text.replacingOccurrences(of: "<script>\(script)</script>", with: "") }
            #expect(!text.contains("<script"), sourceLocation: sourceLocation)
            #expect(response.text.contains("<script") == !scripts.isEmpty, sourceLocation: sourceLocation)
            #expect(response.text.contains("name=\"viewport\""), sourceLocation: sourceLocation)
        }
    }

    @Test func unknownClientGetsALocalPageNeverARedirect() async throws {
        try await withHarness { h in
            let response = try await h.client.get(
                OAuthHarness.authorizePath(clientID: "nope", verifier: OAuthHarness.newVerifier()))
            #expect(response.status == 400)
            #expect(response.header("location") == nil)
            #expect(response.header("content-type")?.hasPrefix("text/html") == true)
            Self.expectPageHeaders(response)
        }
    }

    @Test func unregisteredRedirectGetsALocalPage() async throws {
        try await withHarness { h in
            let client = try await h.register()
            for redirect in [
                "https://evil.example/cb", "https://claude.com/api/mcp/auth_callback", "javascript:alert(1)",
            ] {
                let response = try await h.client.get(
                    OAuthHarness.authorizePath(
                        clientID: client.id, verifier: OAuthHarness.newVerifier(), redirectURI: redirect))
                #expect(response.status == 400, "\(redirect)")
                #expect(response.header("location") == nil)
            }
        }
    }

    @Test func laterErrorsRedirectWithErrorStateAndIss() async throws {
        try await withHarness { h in
            let client = try await h.register()
            let cases: [([(String, String)], String)] = [
                ([("code_challenge_method", "plain")], "invalid_request"),
                ([("resource", "https://other.example/mcp")], "invalid_target"),
                // Issue 41: an unknown scope is dropped now; a malformed one is still refused.
                ([("scope", "todos:read \"bad")], "invalid_scope"),
            ]
            for (extra, code) in cases {
                var path = OAuthHarness.authorizePath(
                    clientID: client.id, verifier: OAuthHarness.newVerifier(), state: "keep me")
                if extra[0].0 == "code_challenge_method" {
                    path = path.replacingOccurrences(
                        of: "code_challenge_method=S256", with: "code_challenge_method=plain")
                } else {
                    path += "&" + FormDecoding.encode(extra)
                }
                let response = try await h.client.get(path)
                #expect(response.status == 302, "\(extra)")
                #expect(response.header("location")?.hasPrefix(OAuthHarness.claudeRedirect + "?error=") == true)
                #expect(response.locationQuery["error"] == [code])
                #expect(response.locationQuery["state"] == ["keep me"])
                #expect(response.locationQuery["iss"] == ["https://relay.example"])
                #expect(response.header("referrer-policy") == "no-referrer")
            }
            // No PKCE at all: also a redirect error, never a consent page.
            let noPKCE =
                "/authorize?"
                + FormDecoding.encode([
                    ("response_type", "code"), ("client_id", client.id), ("redirect_uri", OAuthHarness.claudeRedirect),
                    ("state", "s"),
                ])
            let refused = try await h.client.get(noPKCE)
            #expect(refused.status == 302)
            #expect(refused.locationQuery["error"] == ["invalid_request"])
        }
    }

    @Test func consentPageShowsClientHostAndOriginWithProtectiveHeaders() async throws {
        try await withHarness { h in
            let client = try await h.register(extra: "")
            let response = try await h.browser().get(
                OAuthHarness.authorizePath(clientID: client.id, verifier: OAuthHarness.newVerifier()))
            #expect(response.status == 200)
            Self.expectPageHeaders(response)
            // Issue 41: a known platform's callback is shown under the platform's name, verified;
            // the name the client gave itself ("Test Client") is not shown.
            #expect(response.text.contains("<strong><bdi>Claude</bdi></strong>"))
            #expect(response.text.contains("claude.ai"))
            #expect(response.text.contains(">Verified<"))
            #expect(response.text.contains("Continue with Apple"))
            let csp = try #require(response.header("content-security-policy"))
            #expect(csp.contains("form-action 'self' https://idmsa.apple.com"))
            #expect(csp.contains("https://claude.ai"), "Cancel redirects to the client: form-action allows it")
            let cookie = try #require(response.header("set-cookie"))
            #expect(cookie.hasPrefix("__Host-mdr_"))
            #expect(cookie.contains("Path=/"))
            #expect(cookie.contains("Secure"))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Lax"))
            #expect(!cookie.contains("Domain"))
        }
    }

    @Test func clientNameIsEscaped() async throws {
        try await withHarness { h in
            let response = try await h.client.postJSON(
                "/register",
                // Issue 41: a self-registered redirect, where the page shows the claimed name (a known
                // platform's callback shows the platform's name instead).
                #"{"redirect_uris":["https://notes.example.org/cb"],"token_endpoint_auth_method":"none","client_name":"<script>alert('x')</script>&\"Evil\""}"#
            )
            let id = try #require(JSONValue(parsing: response.body)["client_id"]?.stringValue)
            let page = try await h.browser().get(
                OAuthHarness.authorizePath(
                    clientID: id, verifier: OAuthHarness.newVerifier(), redirectURI: "https://notes.example.org/cb"))
            #expect(page.status == 200)
            // The page's own script (issue 37's `TabBinding`) is the only one.
            let others = page.text.replacingOccurrences(of: "<script>\(TabBinding.keepScript)</script>", with: "")
            #expect(!others.contains("<script>"))
            #expect(page.text.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;Evil&quot;"))
        }
    }

    @Test func japaneseByAcceptLanguage() async throws {
        try await withHarness { h in
            let client = try await h.register()
            let browser = h.browser()
            browser.acceptLanguage = "ja-JP,ja;q=0.9,en;q=0.8"
            let page = try await browser.get(
                OAuthHarness.authorizePath(clientID: client.id, verifier: OAuthHarness.newVerifier()))
            #expect(page.text.contains("Apple で続ける"))
            #expect(page.text.contains("<html lang=\"ja\">"))
            #expect(page.header("content-language") == "ja")
            browser.acceptLanguage = "fr, en;q=0.5, ja;q=0.1"
            let english = try await browser.get(
                OAuthHarness.authorizePath(clientID: client.id, verifier: OAuthHarness.newVerifier()))
            #expect(english.text.contains("Continue with Apple"))
        }
    }

    /// Issue 39 (moved to 37): a Japanese error page says everything in Japanese; the English detail line
    /// stays on the English page only.
    @Test func japaneseErrorPageHasNoEnglishDetailLine() async throws {
        try await withHarness { h in
            let browser = h.browser()
            browser.acceptLanguage = "en"
            let english = try await browser.get("/authorize?client_id=unknown-client&response_type=code")
            #expect(english.status >= 400)
            #expect(english.text.contains("<p class=muted>"), "the English page keeps its detail")
            browser.acceptLanguage = "ja"
            let japanese = try await browser.get("/authorize?client_id=unknown-client&response_type=code")
            #expect(japanese.status == english.status)
            #expect(japanese.text.contains("<html lang=\"ja\">"))
            #expect(!japanese.text.contains("<p class=muted>"), "no English detail line")
            let body = (japanese.text.components(separatedBy: "<main>").last ?? "")
                .replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
            let latin = body.unicodeScalars.filter { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
            #expect(latin.count < 12, "almost no Latin letters in the Japanese body: \(body)")
        }
    }

    @Test func loopbackDemoUsesPlainCookieNames() async throws {
        try await withHarness(issuer: "http://127.0.0.1:8080") { h in
            let client = try await h.register(redirectURIs: ["http://localhost/callback"])
            let page = try await h.browser().get(
                OAuthHarness.authorizePath(
                    clientID: client.id, verifier: OAuthHarness.newVerifier(),
                    redirectURI: "http://localhost:5555/callback"))
            #expect(page.status == 200)
            let cookie = try #require(page.header("set-cookie"))
            #expect(cookie.hasPrefix("mdr_"))
            #expect(!cookie.contains("Secure"))
            #expect(cookie.contains("HttpOnly"))
            #expect(page.text.contains("localhost:5555"))
        }
    }

    @Test func pendingRequestIsStoredWithATimeToLive() async throws {
        try await withHarness { h in
            let client = try await h.register()
            let page = try await h.browser().get(
                OAuthHarness.authorizePath(clientID: client.id, verifier: OAuthHarness.newVerifier()))
            let id = try #require(TestBrowser.hidden("request", in: page.text))
            let item = try #require(try await h.store.get(OAuthKeys.pendingRequest(id)))
            #expect(item.expiresAt == Int(h.clock.now()) + 600)
            h.clock.advance(by: 601)
            #expect(try await h.store.get(OAuthKeys.pendingRequest(id)) == nil)
        }
    }
}
