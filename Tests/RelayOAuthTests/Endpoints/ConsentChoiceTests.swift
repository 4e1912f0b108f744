import RelayJSON
import Testing

@testable import RelayOAuth

/// The consent page's choice: an app that asks to read and write can be allowed to read only. What
/// the person picked is what the grant, every token and every token response carry; a refresh can
/// only narrow it; and the form's value is checked against what was asked, so an edited form can
/// never widen anything.
struct ConsentChoiceTests {
    /// The consent page for a new client asking for `scope` (nil: the default, every scope).
    static func page(
        _ h: OAuthHarness, scope: String? = nil, language: String = "en"
    ) async throws -> (browser: TestBrowser, page: TestResponse, client: String, verifier: String) {
        let client = try await h.register().id
        let verifier = OAuthHarness.newVerifier()
        let browser = h.browser()
        browser.acceptLanguage = language
        let extra = scope.map { [("scope", $0)] } ?? []
        let page = try await browser.get(
            OAuthHarness.authorizePath(clientID: client, verifier: verifier, extra: extra))
        #expect(page.status == 200, "consent page: \(page.text)")
        return (browser, page, client, verifier)
    }

    /// Presses Continue with `scope` as the form's value (nil: the field left out), signs in, and
    /// exchanges the code; returns the token response.
    static func consent(
        _ h: OAuthHarness, scope: String?, asking: String? = nil, appleID: String = "alice@example.com"
    ) async throws -> Tokens {
        let (browser, page, client, verifier) = try await Self.page(h, scope: asking)
        var form = [
            ("request", try #require(TestBrowser.hidden("request", in: page.text))),
            ("csrf", try #require(TestBrowser.hidden("csrf", in: page.text))), ("action", "continue"),
        ]
        if let scope { form.append(("scope", scope)) }
        let pressed = try await browser.post("/authorize/consent", form)
        #expect(pressed.status == 303, "consent: \(pressed.text)")
        let back = try await browser.get(h.callbackPath(token: h.signIn.token(for: appleID)))
        let code = try #require(back.locationQuery["code"]?.first, "callback: \(back.status)")
        let exchanged = try await h.exchange(code: code, verifier: verifier, clientID: client)
        #expect(exchanged.status == 200, "exchange: \(exchanged.text)")
        return try Tokens(exchanged, clientID: client)
    }

    @Test func theConsentPageOffersReadOnlyAsASecondChoiceInBothLanguages() async throws {
        try await withHarness { h in
            let (_, page, _, _) = try await Self.page(h)
            AuthorizeEndpointTests.expectPageHeaders(page)
            #expect(page.text.contains(#"<input type=radio name=scope value="todos:read todos:write" checked>"#))
            #expect(page.text.contains(#"<input type=radio name=scope value="todos:read">"#))
            #expect(page.text.contains("Only read your to-dos"))
            #expect(page.text.contains("It can&#39;t add, change, complete, snooze or delete anything."))
            #expect(page.text.contains(#"<a href="/connections">See or end your connected apps</a>"#))
            let (_, japanese, _, _) = try await Self.page(h, language: "ja")
            #expect(japanese.text.contains("To-Do の閲覧のみ"))
            #expect(japanese.text.contains("接続中のアプリを確認・解除する"))
        }
    }

    @Test func anAppAskingOnlyToReadGetsNoChoice() async throws {
        try await withHarness { h in
            let (_, page, _, _) = try await Self.page(h, scope: "todos:read")
            #expect(!page.text.contains("type=radio name=scope"))
            #expect(!page.text.contains("Add, change"))
        }
    }

    @Test func choosingReadOnlyIsWhatTheGrantTokensAndRefreshCarry() async throws {
        try await withHarness { h in
            let tokens = try await Self.consent(h, scope: "todos:read")
            #expect(tokens.scope == "todos:read")
            let grant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(tokens.accessToken))
            #expect(grant.scopes == ["todos:read"])
            let stored = try #require(try await h.oauth.grants.load(grant.grantID))
            #expect(stored.scope.tokens == ["todos:read"])

            // A refresh cannot ask for more than the person allowed; without a scope it keeps it.
            let wider = try await h.refresh(
                try #require(tokens.refreshToken), clientID: tokens.clientID,
                extra: [("scope", "todos:read todos:write")])
            #expect(wider.status == 400)
            #expect(try JSONValue(parsing: wider.body)["error"] == "invalid_scope")
            let same = try await h.refresh(try #require(tokens.refreshToken), clientID: tokens.clientID)
            #expect(same.status == 200, "refresh: \(same.text)")
            let refreshed = try Tokens(same, clientID: tokens.clientID)
            #expect(refreshed.scope == "todos:read")
            let again = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(refreshed.accessToken))
            #expect(again.scopes == ["todos:read"])
        }
    }

    @Test func keepingWhatWasAskedOrLeavingTheFieldOutGrantsWhatWasAsked() async throws {
        try await withHarness { h in
            let chosen = try await Self.consent(h, scope: "todos:read todos:write")
            #expect(chosen.scope == "todos:read todos:write")
            // Reordered tokens name the same choice.
            let reordered = try await Self.consent(h, scope: "todos:write todos:read")
            #expect(reordered.scope == "todos:read todos:write")
            let omitted = try await Self.consent(h, scope: nil)
            #expect(omitted.scope == "todos:read todos:write")
        }
    }

    /// Every edited form is refused before anything is recorded, and the request can still be
    /// consented to properly afterwards (the CSRF token was not spent).
    @Test func anEditedFormCannotWidenOrInventAChoice() async throws {
        try await withHarness { h in
            let cases: [(asked: String?, sent: [String])] = [
                (nil, ["todos:write"]),
                (nil, ["todos:read todos:write offline_access"]),
                (nil, ["todos:read todos:write admin"]),
                (nil, [""]),
                (nil, ["todos:read  todos:write"]),
                (nil, ["todos:read", "todos:read todos:write"]),
                ("todos:read", ["todos:read todos:write"]),
                ("todos:read", ["todos:write"]),
            ]
            for (asked, sent) in cases {
                let (browser, page, _, _) = try await Self.page(h, scope: asked)
                let id = try #require(TestBrowser.hidden("request", in: page.text))
                let csrf = try #require(TestBrowser.hidden("csrf", in: page.text))
                let form = [("request", id), ("csrf", csrf), ("action", "continue")] + sent.map { ("scope", $0) }
                let refused = try await browser.post("/authorize/consent", form)
                #expect(refused.status == 400, "asked \(asked ?? "-"), sent \(sent): \(refused.status)")
                #expect(refused.header("location") == nil)
                let record = try #require(try await h.oauth.pending.load(id))
                #expect(record.status == .pending)
                #expect(record.request?.scope.text == (asked ?? "todos:read todos:write"))
                let proper = try await browser.post("/authorize/consent", [("request", id), ("csrf", csrf)])
                #expect(proper.status == 303, "the proper form still works: \(proper.text)")
            }
        }
    }
}
