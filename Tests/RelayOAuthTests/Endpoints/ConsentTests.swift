import RelayHTTP
import RelayJSON
import Testing

@testable import RelayOAuth

/// The consent POST: CSRF token (hash kept, single use), binding cookie, consent recorded, then
/// Apple's sign-in; Cancel sends `access_denied` back.
struct ConsentTests {
    /// A browser on the consent page of a fresh request: (browser, page, request ID, csrf).
    static func consentPage(_ h: OAuthHarness) async throws -> (TestBrowser, TestResponse, String, String) {
        let client = try await h.register()
        let browser = h.browser()
        let page = try await browser.get(
            OAuthHarness.authorizePath(clientID: client.id, verifier: OAuthHarness.newVerifier(), state: "s-9"))
        return (
            browser, page, try #require(TestBrowser.hidden("request", in: page.text)),
            try #require(TestBrowser.hidden("csrf", in: page.text))
        )
    }

    /// Apple ends a web sign-in after 30 minutes unless the person ticks "Keep me signed in" on Apple's page
    /// (two weeks then): the consent page says so before the person goes there, in both languages.
    @Test func consentPageTellsThePersonToKeepSignedInInBothLanguages() async throws {
        try await withHarness { h in
            let (_, page, _, _) = try await Self.consentPage(h)
            #expect(page.text.contains("<p id=keep-signed-in>"))
            #expect(page.text.contains("tick “Keep me signed in”"))
            #expect(page.text.contains("after 30 minutes"))
            let client = try await h.register()
            let browser = h.browser()
            browser.acceptLanguage = "ja"
            let japanese = try await browser.get(
                OAuthHarness.authorizePath(clientID: client.id, verifier: OAuthHarness.newVerifier()))
            #expect(japanese.text.contains("「サインインしたままにする」にチェック"))
            #expect(japanese.text.contains("30 分"))
        }
    }

    @Test func continueRecordsConsentAndGoesToApple() async throws {
        try await withHarness { h in
            let (browser, _, id, csrf) = try await Self.consentPage(h)
            let response = try await browser.post(
                "/authorize/consent", [("request", id), ("csrf", csrf), ("action", "continue")])
            #expect(response.status == 303)
            #expect(response.header("location") == h.signIn.url)
            AuthorizeEndpointTests.expectPageHeaders(response)
            let item = try #require(try await h.store.get(OAuthKeys.pendingRequest(id)))
            #expect(item.attributes["status"] == "consented")
            #expect(item.attributes["consented"]?.intValue == Int(h.clock.now()))
            #expect(item.attributes["csrf"] == nil, "the CSRF token is spent")
        }
    }

    @Test func missingOrWrongCSRFIsRefused() async throws {
        try await withHarness { h in
            let (browser, _, id, csrf) = try await Self.consentPage(h)
            let missing = try await browser.post("/authorize/consent", [("request", id), ("action", "continue")])
            #expect(missing.status == 403)
            let wrong = try await browser.post(
                "/authorize/consent", [("request", id), ("csrf", String(csrf.reversed())), ("action", "continue")])
            #expect(wrong.status == 403)
            #expect(wrong.header("location") == nil)
            #expect(try await h.store.get(OAuthKeys.pendingRequest(id))?.attributes["status"] == "pending")
            // The right token still works once, and only once.
            let good = try await browser.post(
                "/authorize/consent", [("request", id), ("csrf", csrf), ("action", "continue")])
            #expect(good.status == 303)
            let again = try await browser.post(
                "/authorize/consent", [("request", id), ("csrf", csrf), ("action", "continue")])
            #expect(again.status != 303)
        }
    }

    @Test func crossSitePostWithoutTheCookieIsRefused() async throws {
        try await withHarness { h in
            let (_, _, id, csrf) = try await Self.consentPage(h)
            // SameSite=Lax: a cross-site POST arrives without the cookie, even with the form values.
            let stranger = h.browser()
            let response = try await stranger.post(
                "/authorize/consent", [("request", id), ("csrf", csrf), ("action", "continue")])
            #expect(response.status == 403)
            #expect(try await h.store.get(OAuthKeys.pendingRequest(id))?.attributes["status"] == "pending")
            // Another request's cookie does not fit either.
            let (other, _, _, _) = try await Self.consentPage(h)
            let foreign = h.browser()
            for (name, value) in other.cookies {
                foreign.setCookie(name.replacingOccurrences(of: name.dropFirst(11), with: id), value)
            }
            let mismatched = try await foreign.post(
                "/authorize/consent", [("request", id), ("csrf", csrf), ("action", "continue")])
            #expect(mismatched.status == 403)
        }
    }

    @Test func cancelSendsAccessDeniedWithStateAndIss() async throws {
        try await withHarness { h in
            let (browser, _, id, csrf) = try await Self.consentPage(h)
            let response = try await browser.post(
                "/authorize/consent", [("request", id), ("csrf", csrf), ("action", "cancel")])
            #expect(response.status == 303)
            #expect(response.locationQuery["error"] == ["access_denied"])
            #expect(response.locationQuery["state"] == ["s-9"])
            #expect(response.locationQuery["iss"] == ["https://relay.example"])
            #expect(try await h.store.get(OAuthKeys.pendingRequest(id)) == nil)
            #expect(browser.cookies.isEmpty)
        }
    }

    @Test func expiredRequestGetsAPage() async throws {
        try await withHarness { h in
            let (browser, _, id, csrf) = try await Self.consentPage(h)
            h.clock.advance(by: 601)
            let response = try await browser.post(
                "/authorize/consent", [("request", id), ("csrf", csrf), ("action", "continue")])
            #expect(response.status == 410)
            #expect(response.text.contains("expired"))
            AuthorizeEndpointTests.expectPageHeaders(response)
        }
    }
}
