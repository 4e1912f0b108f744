import Testing

@testable import RelayOAuth

/// Redirect URIs: strict parsing, the allowlist, and exact matching with the loopback port rule.
struct RedirectPolicyTests {
    let policy = RedirectURIPolicy(allowlist: RedirectAllowlist()!, maximumCount: 10)

    @Test(arguments: [
        "https://claude.ai/api/mcp/auth_callback",
        "https://claude.com/api/mcp/auth_callback",
        "https://chatgpt.com/connector_platform_oauth_redirect",
        "https://chatgpt.com/connector/oauth/abc123",
        "cursor://anysphere.cursor-mcp/oauth/callback",
        "https://www.cursor.com/agents/mcp/oauth/callback",
        "http://localhost:8787/callback",
        "https://vscode.dev/redirect",
        "https://insiders.vscode.dev/redirect",
        "claude://claude.ai/mcp-auth-callback/sdk",
        "http://localhost:6274/oauth/callback",
        "http://localhost:6274/oauth/callback/debug",
        "http://localhost/callback",
        "http://127.0.0.1:33418/",
        "http://127.0.0.1:33418",
        "http://[::1]:9999/cb?x=1",
    ])
    func defaultAllowlistAcceptsKnownClients(uri: String) {
        #expect(policy.verdict(uri) == .allowed)
    }

    @Test(arguments: [
        "https://evil.example/api/mcp/auth_callback",
        "https://claude.ai/api/mcp/auth_callback/extra",
        "https://claude.ai/api/mcp/auth_callback?x=1",
        "https://claude.ai:8443/api/mcp/auth_callback",
        "https://chatgpt.com/connector/oauth/",
        "https://chatgpt.com/connector/oauth/a/b",
        "https://CLAUDE.ai/api/mcp/auth_callback",
        "https://vscode.dev/redirect/",
        "https://vscode.dev/redirect?x=1",
        "https://evil.vscode.dev/redirect",
        "claude://claude.ai/mcp-auth-callback/other",
        "claude://evil.example/mcp-auth-callback/sdk",
        "https://localhost/callback",
        "cursor://anysphere.cursor-mcp/oauth/other",
    ])
    func urisOutsideTheAllowlistAreLeftOut(uri: String) {
        #expect(policy.verdict(uri) == .outsideAllowlist)
    }

    @Test(arguments: [
        "javascript:alert(1)", "JavaScript:alert(1)", "JAVASCRIPT://claude.ai/%0aalert(1)", "data:text/html,hi",
        "data:text/html;base64,PHNjcmlwdD4=", "vbscript:msgbox", "file:///etc/passwd", "blob:https://x/y",
        " https://claude.ai/api/mcp/auth_callback", "https://claude.ai/api/mcp/auth_callback ",
        "https://claude.ai/api/mcp/auth\tcallback", "https://claude.ai/api/mcp/auth_callback\r\n",
        "https://claude.ai/api/mcp/auth_callback\u{0}", "\u{1}https://claude.ai/api/mcp/auth_callback",
        "https://claude.ai/api/mcp/auth_callback#frag", "https://user@claude.ai/api/mcp/auth_callback",
        "https://user:pw@claude.ai/api/mcp/auth_callback", "https://claude.ai/api/../mcp/auth_callback",
        "https://claude.ai/api/%2e%2e/auth_callback", "/api/mcp/auth_callback", "", "claude.ai/api",
        "https:claude.ai/api", "https://claude.ai\\@evil/", "https://claude.ai/%zz", "https://clau de.ai/",
        "https://claude.ai:99999/", "http://example.com/callback", "http://10.0.0.1/callback",
        "http://192.168.1.1:8080/cb", "https://claude.ai/api/mcp/auth_callbäck",
    ])
    func unsafeURIsAreRefused(uri: String) {
        guard case .refused = policy.verdict(uri) else {
            Issue.record("\(uri) was not refused: \(policy.verdict(uri))")
            return
        }
    }

    @Test func registrationKeepsAllowedDropsOthersAndRefusesUnsafeLists() throws {
        let mixed = policy.filter([
            "cursor://anysphere.cursor-mcp/oauth/callback", "https://vscode.dev/redirect/", "http://127.0.0.1:1234/cb",
        ])
        #expect(try mixed.get() == ["cursor://anysphere.cursor-mcp/oauth/callback", "http://127.0.0.1:1234/cb"])
        #expect(throws: OAuthError.self) { try policy.filter([]).get() }
        #expect(throws: OAuthError.self) { try policy.filter(["https://vscode.dev/redirect/"]).get() }
        #expect(throws: OAuthError.self) {
            try policy.filter(["https://claude.ai/api/mcp/auth_callback", "javascript:alert(1)"]).get()
        }
        let many = (0..<11).map { "http://localhost:\(1000 + $0)/cb" }
        #expect(throws: OAuthError.self) { try policy.filter(many).get() }
        #expect(try policy.filter(Array(many.prefix(10))).get().count == 10)
    }

    @Test func customAllowlistPatterns() throws {
        let list = try #require(RedirectAllowlist(["https://app.example/cb/*", "https://a.example:*/**"]))
        let custom = RedirectURIPolicy(allowlist: list, maximumCount: 3)
        #expect(custom.verdict("https://app.example/cb/one") == .allowed)
        #expect(custom.verdict("https://app.example/cb") == .outsideAllowlist)
        #expect(custom.verdict("https://a.example:444/x/y?z=1") == .allowed)
        #expect(custom.verdict("https://claude.ai/api/mcp/auth_callback") == .outsideAllowlist)
        #expect(RedirectAllowlist(["javascript://x/*"]) == nil)
        #expect(RedirectAllowlist(["https://x/**/y"]) == nil)
        #expect(RedirectAllowlist(["https://*.example/cb"]) == nil)
        #expect(RedirectAllowlist.invalidPattern(in: ["https://ok/cb", "nope"]) == "nope")
    }

    @Test func exactMatchWithLoopbackPortRelaxation() {
        let registered = [
            "http://localhost/callback", "http://127.0.0.1:5000/cb", "https://claude.ai/api/mcp/auth_callback",
        ]
        // Loopback: any port for the same scheme, host as written, path and query.
        #expect(RedirectURIPolicy.match(requested: "http://localhost:54321/callback", registered: registered) != nil)
        #expect(RedirectURIPolicy.match(requested: "http://localhost/callback", registered: registered) != nil)
        #expect(RedirectURIPolicy.match(requested: "http://127.0.0.1:6000/cb", registered: registered) != nil)
        // The matched URI is the requested one, port included.
        #expect(
            RedirectURIPolicy.match(requested: "http://localhost:54321/callback", registered: registered)
                == "http://localhost:54321/callback")
        // No localhost <-> 127.0.0.1 crossing, no other path, scheme or query.
        #expect(RedirectURIPolicy.match(requested: "http://127.0.0.1:54321/callback", registered: registered) == nil)
        #expect(RedirectURIPolicy.match(requested: "http://localhost:54321/other", registered: registered) == nil)
        #expect(
            RedirectURIPolicy.match(requested: "http://localhost:54321/callback?x=1", registered: registered) == nil)
        #expect(RedirectURIPolicy.match(requested: "https://localhost:54321/callback", registered: registered) == nil)
        #expect(RedirectURIPolicy.match(requested: "http://[::1]:54321/callback", registered: registered) == nil)
        // Non-loopback URIs match only exactly: no port, path or case variation.
        #expect(
            RedirectURIPolicy.match(requested: "https://claude.ai/api/mcp/auth_callback", registered: registered) != nil
        )
        #expect(
            RedirectURIPolicy.match(requested: "https://claude.ai:443/api/mcp/auth_callback", registered: registered)
                == nil)
        #expect(
            RedirectURIPolicy.match(requested: "https://claude.ai/api/mcp/auth_callback/", registered: registered)
                == nil)
        #expect(
            RedirectURIPolicy.match(requested: "https://Claude.ai/api/mcp/auth_callback", registered: registered) == nil
        )
        // Private addresses get no relaxation.
        #expect(
            RedirectURIPolicy.match(requested: "http://192.168.0.2:81/cb", registered: ["http://192.168.0.2:80/cb"])
                == nil)
    }

    @Test func missingRedirectURIUsesTheOnlyRegisteredOne() {
        #expect(RedirectURIPolicy.match(requested: nil, registered: ["https://a/cb"]) == "https://a/cb")
        #expect(RedirectURIPolicy.match(requested: nil, registered: ["https://a/cb", "https://b/cb"]) == nil)
    }
}
