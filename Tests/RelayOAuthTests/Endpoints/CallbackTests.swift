import Foundation
import RelayHTTP
import RelayJSON
import Testing

@testable import RelayOAuth

/// Apple's callback: cookie → pending request, the consent window, consumed exactly once, clean
/// URLs, and clear pages for accounts that cannot connect.
struct CallbackTests {
    /// A browser that pressed Continue: (harness-ready browser, request ID).
    static func consented(_ h: OAuthHarness) async throws -> (TestBrowser, String) {
        let (browser, page, id, _) = try await ConsentTests.consentPage(h)
        #expect(try await h.pressContinue(browser: browser, page: page).status == 303)
        return (browser, id)
    }

    /// The failure code of a callback answer: 302 from the callback URL, or 303 from the callback
    /// page's POST (issue 37), to the clean failure URL.
    static func failure(_ response: TestResponse) -> String? {
        guard [302, 303].contains(response.status), let location = response.header("location") else { return nil }
        #expect(location.hasPrefix("https://relay.example/oauth/apple/callback?failed="))
        #expect(!location.contains("ckWebAuthToken"))
        return response.locationQuery["failed"]?.first
    }

    @Test func callbackWithinTheWindowIssuesACode() async throws {
        try await withHarness { h in
            let (browser, id) = try await Self.consented(h)
            h.clock.advance(by: 180)
            let response = try await browser.get(h.callbackPath(token: h.signIn.token(for: "alice@example.com")))
            #expect(response.status == 303)
            #expect(response.locationQuery["code"]?.first?.hasPrefix("mdr_ac_") == true)
            #expect(response.locationQuery["state"] == ["s-9"])
            #expect(response.locationQuery["iss"] == ["https://relay.example"])
            #expect(response.header("referrer-policy") == "no-referrer")
            #expect(try await h.store.get(OAuthKeys.pendingRequest(id)) == nil, "consumed")
        }
    }

    @Test func callbackAfterTheConsentWindowIsRefused() async throws {
        try await withHarness { h in
            let (browser, id) = try await Self.consented(h)
            h.clock.advance(by: 181)
            let response = try await browser.get(h.callbackPath(token: h.signIn.token(for: "alice@example.com")))
            #expect(Self.failure(response) == "consent_expired")
            #expect(h.signIn.identifyCalls == 0, "nothing was asked of CloudKit")
            #expect(try await h.store.get(OAuthKeys.pendingRequest(id)) != nil, "not consumed")
            let page = try await browser.get(
                try #require(response.header("location")).replacingOccurrences(of: "https://relay.example", with: ""))
            #expect(page.status == 410)
            #expect(page.text.contains("expired"))
            AuthorizeEndpointTests.expectPageHeaders(page)
        }
    }

    @Test func configurableWindow() async throws {
        let settings: (inout OAuthConfiguration) -> Void = { $0.lifetimes.consentWindow = .seconds(5) }
        try await withHarness(configure: settings) { h in
            let (browser, _) = try await Self.consented(h)
            h.clock.advance(by: 6)
            let response = try await browser.get(h.callbackPath(token: h.signIn.token(for: "alice@example.com")))
            #expect(Self.failure(response) == "consent_expired")
        }
    }

    @Test func callbackWithoutConsentIsRefused() async throws {
        try await withHarness { h in
            let (browser, _, _, _) = try await ConsentTests.consentPage(h)
            let response = try await browser.get(h.callbackPath(token: h.signIn.token(for: "alice@example.com")))
            #expect(Self.failure(response) == "already_used")
            #expect(h.signIn.identifyCalls == 0)
        }
    }

    @Test func callbackWithoutTheCookieIsRefused() async throws {
        try await withHarness { h in
            let (_, id) = try await Self.consented(h)
            let response = try await h.browser().get(h.callbackPath(token: h.signIn.token(for: "mallory@example.com")))
            #expect(Self.failure(response) == "binding_missing")
            #expect(try await h.store.get(OAuthKeys.pendingRequest(id)) != nil)
        }
    }

    @Test func callbackWithAForeignCookieIsRefused() async throws {
        try await withHarness { h in
            let (victim, id) = try await Self.consented(h)
            // The attacker's browser holds a cookie with the victim's request name but its own value.
            let attacker = h.browser()
            for (name, _) in victim.cookies { attacker.setCookie(name, "forged-value") }
            let response = try await attacker.get(h.callbackPath(token: h.signIn.token(for: "mallory@example.com")))
            #expect(Self.failure(response) == "binding_mismatch")
            #expect(try await h.store.get(OAuthKeys.pendingRequest(id)) != nil)
            #expect(h.signIn.identifyCalls == 0)
            // A duplicated cookie name (a planted second copy) is not believed either, even with the
            // victim's tab nonce.
            let planted = try await h.client.postForm(
                "/oauth/apple/callback",
                [
                    ("q", "ckWebAuthToken=" + FormDecoding.encode(h.signIn.token(for: "mallory@example.com"))),
                    ("tab", victim.tab ?? ""),
                ],
                headers: [
                    ("Cookie", victim.cookies.map { "\($0.key)=\($0.value); \($0.key)=forged" }.joined(separator: "; "))
                ])
            #expect(Self.failure(planted) != nil)
            #expect(try await h.store.get(OAuthKeys.pendingRequest(id)) != nil)
        }
    }

    @Test func reusedCallbackIsRefused() async throws {
        try await withHarness { h in
            let (browser, _) = try await Self.consented(h)
            let cookies = browser.cookies
            let path = h.callbackPath(token: h.signIn.token(for: "alice@example.com"))
            #expect(try await browser.get(path).status == 303)
            // Replaying the same callback with the same (saved) cookie.
            let replay = h.browser()
            for (name, value) in cookies { replay.setCookie(name, value) }
            #expect(Self.failure(try await replay.get(path)) == "already_used")
        }
    }

    @Test func concurrentCallbacksExactlyOneWins() async throws {
        try await withHarness { h in
            let (browser, _) = try await Self.consented(h)
            let cookies = browser.cookies
            let query = "ckWebAuthToken=" + FormDecoding.encode(h.signIn.token(for: "alice@example.com"))
            let header = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
            // Twelve POSTs of the callback page, each with the starting tab's nonce.
            let form = [("q", query), ("tab", browser.tab ?? "")]
            let responses = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        try await h.client.postForm("/oauth/apple/callback", form, headers: [("Cookie", header)])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let winners = responses.filter { $0.status == 303 && $0.locationQuery["code"] != nil }
            #expect(winners.count == 1)
            #expect(
                responses.filter { $0.locationQuery["code"] == nil && Self.failure($0) == "already_used" }.count == 11)
            #expect(h.sealer.sealed.withLock { $0.count } == 1, "one grant")
        }
    }

    @Test func advancedDataProtectionGetsAClearPageNotALoop() async throws {
        try await withHarness { h in
            let (browser, id) = try await Self.consented(h)
            let response = try await browser.get(
                h.callbackPath(token: h.signIn.token(for: "adp@example.com", unsupported: true)))
            #expect(Self.failure(response) == "account_unsupported")
            #expect(browser.cookies.isEmpty, "the request is finished: its cookie goes")
            #expect(try await h.store.get(OAuthKeys.pendingRequest(id)) == nil)
            let page = try await browser.get("/oauth/apple/callback?failed=account_unsupported")
            #expect(page.status == 403)
            #expect(page.text.contains("Advanced Data Protection"))
            #expect(page.header("location") == nil)
            browser.acceptLanguage = "ja"
            #expect(try await browser.get("/oauth/apple/callback?failed=account_unsupported").text.contains("高度なデータ保護"))
        }
    }

    @Test func missingTokenAndUnavailableCloudKit() async throws {
        try await withHarness { h in
            let (browser, _) = try await Self.consented(h)
            #expect(Self.failure(try await browser.get("/oauth/apple/callback?errorMessage=x")) == "sign_in_failed")
            let (second, _) = try await Self.consented(h)
            h.signIn.state.withLock { $0.unavailable = true }
            let response = try await second.get(h.callbackPath(token: h.signIn.token(for: "alice@example.com")))
            #expect(Self.failure(response) == "temporarily_unavailable")
            // An arbitrary failed= value shows a generic page, never reflected text.
            let page = try await h.client.get("/oauth/apple/callback?failed=%3Cscript%3E")
            #expect(!page.text.contains("<script>"))
        }
    }

    @Test func rawPlusInTheCallbackIsKept() async throws {
        try await withHarness { h in
            let (browser, _) = try await Self.consented(h)
            let token = h.signIn.token(for: "alice@example.com")
            // Apple sometimes leaves `+` and `/` raw; a form decoder would turn `+` into a space.
            let raw = token.replacingOccurrences(of: "=", with: "%3D")
            let response = try await browser.get("/oauth/apple/callback?ckWebAuthToken=\(raw)")
            #expect(response.status == 303)
        }
    }

    @Test func rotatedTokenFromUsersCallerIsTheOneSealed() async throws {
        try await withHarness { h in
            h.signIn.state.withLock { $0.rotate = true }
            let tokens = try await h.connect()
            let request = OAuthHarness.bearerRequest(tokens.accessToken)
            let grant = try await h.oauth.validateBearer(request)
            let opened = try FakeGrantSealer.open(
                grant.sealed, secret: try h.oauth.grantSecret(for: grant, in: request), userID: grant.userID,
                grantID: grant.grantID)
            #expect(opened.hasSuffix("rotated"))
        }
    }

    /// Issue 37: the callback URL stores nothing; only the callback page's POST from the tab that
    /// pressed Continue does.
    @Test func callbackUrlShowsOnlyThePageThatPostsFromTheTab() async throws {
        try await withHarness { h in
            let (browser, id) = try await Self.consented(h)
            let page = try await h.client.get(
                h.callbackPath(token: h.signIn.token(for: "mallory@example.com")),
                headers: browser.cookies.map { ("Cookie", "\($0.key)=\($0.value)") })
            #expect(page.status == 200)
            #expect(page.text.contains("<form id=finish method=post action=\"/oauth/apple/callback\">"))
            #expect(!page.text.contains("mallory"), "the token is not written into the page")
            let csp = try #require(page.header("content-security-policy"))
            #expect(csp.contains("script-src 'sha256-"))
            #expect(!csp.contains("unsafe-inline"))
            AuthorizeEndpointTests.expectPageHeaders(page, script: true)
            #expect(h.signIn.identifyCalls == 0)
            #expect(try await h.store.get(OAuthKeys.pendingRequest(id)) != nil)
        }
    }

    @Test func anotherTabStoresNothingAndTheStartingTabStillFinishes() async throws {
        try await withHarness { h in
            let (person, id) = try await Self.consented(h)
            let query = "ckWebAuthToken=" + FormDecoding.encode(h.signIn.token(for: "mallory@example.com"))
            let header = [("Cookie", person.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))]
            // Another tab of the same browser (its cookies, no nonce), a wrong nonce, and a cross-site POST
            // with the right one.
            for (tab, site) in [("", "same-origin"), ("forged", "same-origin"), (person.tab ?? "", "cross-site")] {
                let response = try await h.client.postForm(
                    "/oauth/apple/callback", [("q", query), ("tab", tab)], headers: header + [("Sec-Fetch-Site", site)])
                #expect(Self.failure(response) == "wrong_tab", "\(tab) \(site)")
            }
            let foreignOrigin = try await h.client.postForm(
                "/oauth/apple/callback", [("q", query), ("tab", person.tab ?? "")],
                headers: header + [("Origin", "https://evil.example")])
            #expect(Self.failure(foreignOrigin) == "wrong_tab")
            #expect(h.signIn.identifyCalls == 0, "nothing was asked of CloudKit")
            #expect(h.sealer.sealed.withLock { $0.count } == 0, "no grant")
            #expect(try await h.store.get(OAuthKeys.pendingRequest(id)) != nil, "not consumed")
            let page = try await person.get("/oauth/apple/callback?failed=wrong_tab")
            #expect(page.status == 403)
            #expect(page.text.contains("start this sign-in"))
            person.acceptLanguage = "ja"
            let ja = try await person.get("/oauth/apple/callback?failed=wrong_tab")
            #expect(ja.text.contains("このタブで始めたサインインではありません"))
            #expect(!ja.text.contains("class=muted"), "no English detail line on a Japanese page")
            // The person's own tab still finishes.
            let finished = try await person.get(h.callbackPath(token: h.signIn.token(for: "alice@example.com")))
            #expect(finished.status == 303)
            #expect(finished.locationQuery["code"]?.first?.hasPrefix("mdr_ac_") == true)
            #expect(person.tab == nil, "the nonce is read once")
        }
    }

    /// The pages that start a sign-in keep their nonce with `data-tab` and the keep script; the disconnect
    /// and connections pages cut a cross-origin opener (COOP), the consent page does not (web clients open
    /// it as a popup and wait on it).
    @Test func startingPagesCarryTheTabNonceAndTheOpenerPolicy() async throws {
        try await withHarness { h in
            let (_, consent, _, _) = try await ConsentTests.consentPage(h)
            for (path, isolated) in [("/disconnect", true), ("/connections", true)] {
                let page = try await h.browser().get(path)
                #expect(page.header("cross-origin-opener-policy") == (isolated ? "same-origin" : nil), "\(path)")
                #expect(TestBrowser.attribute("data-tab", in: page.text)?.count == 43, "\(path)")
                #expect(page.text.contains("<script>\(TabBinding.keepScript)</script>"), "\(path)")
                AuthorizeEndpointTests.expectPageHeaders(page, script: true)
            }
            #expect(consent.header("cross-origin-opener-policy") == nil)
            #expect(TestBrowser.attribute("data-tab", in: consent.text)?.count == 43)
            AuthorizeEndpointTests.expectPageHeaders(consent, script: true)
        }
    }
}
