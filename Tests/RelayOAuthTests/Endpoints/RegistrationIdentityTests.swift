import Foundation
import RelayHTTP
import RelayJSON
import Testing

@testable import RelayOAuth

/// Issue 41: registration by identity. The open mode (default) accepts any safe redirect as
/// self-registered and says so on the consent page; the allowlist mode is the closed list of
/// before; dangerous redirect URIs are refused in both.
struct RegistrationIdentityTests {
    static let libreChat = "https://librechat.example.org/api/mcp/mustdo/oauth/callback"

    /// Harmless callbacks of real clients that the closed list refused (issue 41's list).
    static let selfHosted = [
        libreChat,
        "https://webui.example.org/oauth/clients/mcp:mustdo/callback",
        "https://n8n.example.org/rest/oauth2-credential/callback",
        "vscode://saoudrizwan.claude-dev/mcp-auth/callback/3f2a9c",
        "com.example.app://oauth/callback",
        "http://127.0.0.1:61234/oauth/callback",
    ]

    @Test(arguments: selfHosted)
    func theOpenModeAcceptsSafeRedirects(uri: String) {
        let open = RedirectURIPolicy(allowlist: RedirectAllowlist()!, maximumCount: 10, mode: .open)
        #expect(open.verdict(uri) == .allowed)
    }

    @Test func theAllowlistModeKeepsTheClosedList() {
        let strict = RedirectURIPolicy(allowlist: RedirectAllowlist()!, maximumCount: 10, mode: .allowlist)
        #expect(strict.verdict(Self.libreChat) == .outsideAllowlist)
        #expect(strict.verdict("com.example.app://oauth/callback") == .outsideAllowlist)
        #expect(strict.verdict("http://127.0.0.1:61234/oauth/callback") == .allowed)
        #expect(
            strict.verdict("https://global.consent.azure-apim.net/redirect/cr938-5fzephyr-20mcp-5f43bcb") == .allowed)
    }

    /// Every URI `RedirectPolicyTests` refuses stays refused in the open mode.
    @Test(arguments: [
        "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,hi", "file:///etc/passwd", "blob:https://x/y",
        "vbscript:msgbox", "http://example.com/callback", "http://10.0.0.1/callback", "http://192.168.1.1:8080/cb",
        "https://librechat.example.org/cb#frag", "https://user@librechat.example.org/cb",
        "https://librechat.example.org/a/../cb", "https://librechat.example.org/a%2F..%2Fcb", "ws://x/cb",
        "wss://x/cb", "intent://x/cb", "chrome://settings/x", "ftp://x/cb", "/relative/cb", "",
        "https://librechat.example.org\\@evil/", "com.example.app:/no-authority",
    ])
    func theOpenModeStillRefusesDangerousRedirects(uri: String) {
        let open = RedirectURIPolicy(allowlist: RedirectAllowlist()!, maximumCount: 10, mode: .open)
        guard case .refused = open.verdict(uri) else {
            Issue.record("\(uri) was not refused: \(open.verdict(uri))")
            return
        }
    }

    @Test func operatorsAddToTheDefaultsNeverReplacingThem() throws {
        let list = try #require(RedirectAllowlist(adding: ["https://librechat.example.org/api/mcp/*/oauth/callback"]))
        let strict = RedirectURIPolicy(allowlist: list, maximumCount: 10, mode: .allowlist)
        #expect(strict.verdict(Self.libreChat) == .allowed)
        #expect(strict.verdict("https://claude.ai/api/mcp/auth_callback") == .allowed)
        #expect(strict.verdict("https://www.perplexity.ai/rest/connections/oauth_callback") == .allowed)
        #expect(RedirectAllowlist(adding: ["nope"]) == nil)
    }

    @Test func aSelfHostedClientRegistersByDefaultAndOnlyInTheOpenMode() async throws {
        try await withHarness { h in
            let response = try await h.client.postJSON("/register", "{\"redirect_uris\":[\"\(Self.libreChat)\"]}")
            #expect(response.status == 201)
        }
        let strict: (inout OAuthConfiguration) -> Void = { $0.registrationMode = .allowlist }
        try await withHarness(configure: strict) { h in
            let response = try await h.client.postJSON("/register", "{\"redirect_uris\":[\"\(Self.libreChat)\"]}")
            #expect(response.status == 400)
            #expect(try JSONValue(parsing: response.body)["error"] == "invalid_redirect_uri")
        }
    }

    /// The impostor: a self-registered "Claude" returning to its own host. The page leads with
    /// that host, marks the app unverified, shows the name only as a claim, and the button names
    /// the host. The whole flow still works (the person may use such an app on purpose).
    @Test func aSelfRegisteredImpostorIsShownAsOne() async throws {
        try await withHarness { h in
            let impostor = try await h.register(redirectURIs: [Self.libreChat], name: "Claude")
            let verifier = OAuthHarness.newVerifier()
            let path = OAuthHarness.authorizePath(
                clientID: impostor.id, verifier: verifier, redirectURI: Self.libreChat)
            let page = try await h.browser().get(path)
            #expect(page.status == 200)
            let text = page.text
            let lead = try #require(
                text.range(of: "An app that returns to <span class=host>librechat.example.org</span>"))
            #expect(text.contains("Unverified app"))
            #expect(text.contains("It calls itself “<bdi>Claude</bdi>”"))
            #expect(!text.contains("<strong><bdi>Claude</bdi></strong>"), "never the verified form")
            #expect(!text.contains(">Verified<"))
            #expect(
                text.contains(
                    "Continue with Apple, then return to <span class=host>librechat.example.org</span></button>"))
            // It leads: nothing about the app comes before where it returns.
            let claim = try #require(text.range(of: "It calls itself"))
            #expect(lead.lowerBound < claim.lowerBound)
            let code = try await h.code(clientID: impostor.id, verifier: verifier, redirectURI: Self.libreChat)
            let tokens = try await h.exchange(
                code: code, verifier: verifier, clientID: impostor.id, redirectURI: Self.libreChat)
            #expect(tokens.status == 200)

            let japanese = h.browser()
            japanese.acceptLanguage = "ja"
            let ja = try await japanese.get(
                OAuthHarness.authorizePath(
                    clientID: impostor.id, verifier: OAuthHarness.newVerifier(), redirectURI: Self.libreChat))
            #expect(ja.text.contains("未確認のアプリ"))
            #expect(ja.text.contains("「<bdi>Claude</bdi>」と名乗っていますが"))
            #expect(ja.text.contains("Apple で続ける（その後 <span class=host>librechat.example.org</span> に戻ります）"))
        }
    }

    /// A DCR client returning to a known platform's callback is shown by the platform's name, never
    /// by the name it gave itself.
    @Test func aKnownPlatformCallbackIsVerifiedUnderThePlatformsName() async throws {
        try await withHarness { h in
            let client = try await h.register(name: "Totally Not Evil")
            let page = try await h.browser().get(
                OAuthHarness.authorizePath(clientID: client.id, verifier: OAuthHarness.newVerifier()))
            #expect(page.text.contains("<strong><bdi>Claude</bdi></strong>"))
            #expect(page.text.contains(">Verified<"))
            #expect(page.text.contains("Its identity is tied to <span class=host>claude.ai</span>"))
            #expect(!page.text.contains("Totally Not Evil"))
            #expect(page.text.contains(">Continue with Apple</button>"))
        }
    }

    /// A callback pattern any account on the platform can make (a Copilot Studio connector): the
    /// platform is named as verified, but the page says the connector's owner is not, shows the
    /// connector, and asks the person to continue only if they added it themselves. An attacker's
    /// own connector is otherwise shown exactly as the person's would be (consent phishing).
    @Test func aConnectorAnyAccountCanMakeIsNotVouchedForByThePlatform() async throws {
        let connector = "https://global.consent.azure-apim.net/redirect/cr938-attacker-5fmustdo-20mcp"
        try await withHarness { h in
            let client = try await h.register(redirectURIs: [connector], name: "Microsoft Copilot")
            let path = OAuthHarness.authorizePath(
                clientID: client.id, verifier: OAuthHarness.newVerifier(), redirectURI: connector)
            let page = try await h.browser().get(path)
            #expect(page.status == 200)
            let text = page.text
            #expect(text.contains("<strong><bdi>Microsoft Copilot Studio</bdi></strong>"))
            #expect(text.contains(">Verified platform<"))
            #expect(!text.contains(">Verified<"), "never the plain verified badge")
            #expect(text.contains("whose connector this is is not"))
            #expect(
                text.contains(
                    "<span class=host>global.consent.azure-apim.net/redirect/cr938-attacker-5fmustdo-20mcp</span>"))
            #expect(
                text.contains("Continue only if you just added MustDo to <bdi>Microsoft Copilot Studio</bdi> yourself.")
            )

            let japanese = h.browser()
            japanese.acceptLanguage = "ja"
            let ja = try await japanese.get(path)
            #expect(ja.text.contains("確認済みのプラットフォーム"))
            #expect(ja.text.contains("このコネクタが誰のものかは確認されていません"))
        }
        // A fixed platform callback keeps the plain badge.
        let fixed = try #require(RedirectAllowlist())
        guard case .success(let claude) = ParsedURI.parse("https://claude.ai/api/mcp/auth_callback"),
            case .success(let copilot) = ParsedURI.parse(connector)
        else {
            Issue.record("the callbacks parse")
            return
        }
        #expect(fixed.entry(for: claude) == .platform("Claude"))
        #expect(fixed.entry(for: copilot) == .platformConnector("Microsoft Copilot Studio"))
        #expect(
            KnownPlatform.defaults.filter(\.anyAccountMakesOne).map(\.name).sorted() == [
                "ChatGPT", "Google (Gemini app)", "Microsoft Copilot Studio",
            ])
    }

    @Test func metadataDocumentsAreVerifiedOnlyOnTheirOwnSite() async throws {
        try await withHarness { h in
            let url = "https://grok.com/oauth/mcp-client.json"
            h.fetcher.serve(
                url,
                json: """
                    {"client_id":"\(url)","client_name":"Grok","redirect_uris":\
                    ["https://grok.com/connectors-oauth-exchange-code/","https://console.x.ai/oauth/callback"],\
                    "token_endpoint_auth_method":"none"}
                    """)
            let own = try await h.browser().get(
                OAuthHarness.authorizePath(
                    clientID: url, verifier: OAuthHarness.newVerifier(),
                    redirectURI: "https://grok.com/connectors-oauth-exchange-code/"))
            #expect(own.status == 200)
            #expect(own.text.contains("<strong><bdi>Grok</bdi></strong>"))
            #expect(own.text.contains(">Verified<"))
            let elsewhere = try await h.browser().get(
                OAuthHarness.authorizePath(
                    clientID: url, verifier: OAuthHarness.newVerifier(),
                    redirectURI: "https://console.x.ai/oauth/callback"))
            #expect(elsewhere.status == 200)
            #expect(elsewhere.text.contains("Unverified app"))
            #expect(elsewhere.text.contains("returns to <span class=host>console.x.ai</span>"))
        }
    }

    @Test func sameSite() {
        #expect(ClientIdentity.sameSite("claude.ai", "claude.ai"))
        #expect(ClientIdentity.sameSite("chatgpt.com", "auth.chatgpt.com"))
        #expect(ClientIdentity.sameSite("docs.example.com", "example.com"))
        #expect(!ClientIdentity.sameSite("a.github.io", "b.github.io"))
        #expect(!ClientIdentity.sameSite("claude.ai", "claude.ai.evil.example"))
        #expect(!ClientIdentity.sameSite("evilclaude.ai", "claude.ai"))
        #expect(!ClientIdentity.sameSite("x.example", "example"))
    }
}
