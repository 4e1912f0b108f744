import Foundation
import RelayJSON
import Testing

@testable import RelayOAuth

/// Client names that would reorder, hide or break what a person reads are refused at registration,
/// left out of metadata documents, and never reach the consent page, even when stored earlier.
struct DisplayTextTests {
    /// One of each kind of hidden character, each inside an otherwise ordinary name.
    static let hidden: [String] = [
        "\u{202E}", "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}",
        "\u{200E}", "\u{200F}", "\u{061C}", "\u{200B}", "\u{2060}", "\u{2063}", "\u{FEFF}", "\u{00AD}", "\u{2028}",
        "\u{2029}", "\u{0085}", "\u{0009}", "\u{000A}", "\u{001B}", "\u{007F}", "\u{E0041}", "\u{E0001}", "\u{3164}",
        "\u{115F}", "\u{FFA0}", "\u{034F}", "\u{180E}", "\u{F8FF}", "\u{FFFE}", "\u{FFF9}",
    ].map { "Claude\($0)Evil" }

    /// Names real people use: right-to-left scripts, joiners that Persian and emoji need, variation
    /// selectors, CJK, accents, symbols.
    static let visible = [
        "Claude", "ChatGPT (Work)", "عميل البريد", "לקוח", "می‌خواهم", "👨‍👩‍👧 Family", "❤️ Todo", "葛\u{E0100}飾", "MustDo 助手",
        "Café Ølé", "A & B <C>",
    ]

    let redirects = RedirectURIPolicy(allowlist: RedirectAllowlist()!, maximumCount: 10)

    private func registration(name: String) -> Result<RegistrationRequest, OAuthError> {
        let body: JSONValue = [
            "redirect_uris": [.string(OAuthHarness.claudeRedirect)], "client_name": .string(name),
        ]
        return RegistrationPolicy.validate(body, redirects: redirects, supportedScopes: ["todos:read", "todos:write"])
    }

    private func document(name: String) -> Result<RegisteredClient, OAuthError> {
        let url = "https://claude.ai/oauth/mcp-oauth-client-metadata"
        let body: JSONValue = [
            "client_id": .string(url), "client_name": .string(name),
            "redirect_uris": [.string(OAuthHarness.claudeRedirect)], "token_endpoint_auth_method": "none",
        ]
        return ClientMetadataPolicy.client(
            from: FetchedDocument(status: 200, headers: ["Content-Type": "application/json"], body: body.bytes),
            url: url, redirects: redirects, supportedScopes: ["todos:read"], now: 0)
    }

    @Test(arguments: hidden)
    func registrationRefusesHiddenCharacters(name: String) {
        guard case .failure(let error) = registration(name: name) else {
            Issue.record("accepted \(name.unicodeScalars.map { String($0.value, radix: 16) })")
            return
        }
        #expect(error.code == .invalidClientMetadata)
        #expect(!DisplayText.isShowable(name))
    }

    @Test(arguments: visible)
    func visibleNamesAreKeptAsTheyAre(name: String) throws {
        #expect(try registration(name: name).get().name == name)
        #expect(try document(name: name).get().name == name)
        #expect(DisplayText.neutralised(name) == name)
    }

    @Test(arguments: hidden)
    func aMetadataDocumentKeepsWorkingWithoutItsName(name: String) throws {
        let client = try document(name: name).get()
        #expect(client.name == nil)
        #expect(client.redirectURIs == [OAuthHarness.claudeRedirect])
    }

    @Test func anOperatorSeesAQuestionMarkWhereAHiddenCharacterWas() {
        #expect(DisplayText.neutralised("Claude\u{202E}Evil\u{200B}") == "Claude?Evil?")
        #expect(DisplayText.neutralised("a\u{2028}b", replacement: "_") == "a_b")
    }

    @Test func registrationThroughTheEndpointRefusesABidiOverride() async throws {
        try await withHarness { h in
            let response = try await h.client.postJSON(
                "/register",
                "{\"redirect_uris\":[\"\(OAuthHarness.claudeRedirect)\"],\"client_name\":\"Claude\\u202Etxt.exe\"}")
            #expect(response.status == 400)
            #expect(try JSONValue(parsing: response.body)["error"]?.stringValue == "invalid_client_metadata")
        }
    }

    /// A DCR record stored before the rule (or written by an older version) with an override in its
    /// name: the consent page served by the real server shows the unnamed-app text instead, and no
    /// hidden character at all.
    @Test func theConsentPageNeverShowsAHiddenCharacter() async throws {
        try await withHarness { h in
            for (index, name) in Self.hidden.enumerated() {
                let client = RegisteredClient(
                    id: "stored-earlier-\(index)", source: .registration, name: name,
                    // Issue 41: a self-registered redirect, where the page shows the claimed name (a
                    // known platform's callback shows the platform's name instead).
                    redirectURIs: ["https://notes.example.org/cb"], authMethod: .none,
                    grantTypes: ["authorization_code", "refresh_token"], scope: nil, secretHash: nil,
                    secretPepperVersion: nil, issuedAt: 0)
                _ = try await h.store.put(OAuthKeys.client(client.id), attributes: client.attributes)
                let page = try await h.browser().get(
                    OAuthHarness.authorizePath(
                        clientID: client.id, verifier: OAuthHarness.newVerifier(),
                        redirectURI: "https://notes.example.org/cb"))
                #expect(page.status == 200)
                let shown = page.text.unicodeScalars.filter { DisplayText.isHidden($0) && $0 != "\n" && $0 != "\t" }
                #expect(shown.isEmpty, "\(index): \(shown.map { String($0.value, radix: 16) })")
                #expect(page.text.contains("<bdi>(unnamed app)</bdi>"), "\(index)")
                #expect(!page.text.contains("Evil"), "\(index)")
            }
        }
    }

    @Test func aRightToLeftNameIsIsolatedFromTheSentence() async throws {
        try await withHarness { h in
            let response = try await h.client.postJSON(
                "/register",
                // Issue 41: a self-registered redirect, where the name is shown as a claim.
                "{\"redirect_uris\":[\"https://notes.example.org/cb\"],\"client_name\":\"עוזר\",\"token_endpoint_auth_method\":\"none\"}"
            )
            let client = try #require(JSONValue(parsing: response.body)["client_id"]?.stringValue)
            let page = try await h.browser().get(
                OAuthHarness.authorizePath(
                    clientID: client, verifier: OAuthHarness.newVerifier(), redirectURI: "https://notes.example.org/cb")
            )
            #expect(page.text.contains("“<bdi>עוזר</bdi>”"))
        }
    }

    @Test func aMetadataDocumentClientWithAHiddenNameShowsItsHost() async throws {
        try await withHarness { h in
            let url = "https://claude.ai/oauth/mcp-oauth-client-metadata"
            h.fetcher.serve(
                url,
                json: """
                    {"client_id":"\(url)","client_name":"Claude\\u202Eevil",\
                    "redirect_uris":["\(OAuthHarness.claudeRedirect)"],"token_endpoint_auth_method":"none"}
                    """)
            let page = try await h.browser().get(
                OAuthHarness.authorizePath(clientID: url, verifier: OAuthHarness.newVerifier()))
            #expect(page.status == 200)
            #expect(page.text.contains("published at <span class=host>claude.ai</span>"))
            #expect(!page.text.unicodeScalars.contains("\u{202E}"))
            #expect(!page.text.contains("evil"))
        }
    }
}
