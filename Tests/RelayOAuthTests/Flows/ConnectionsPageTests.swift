import RelayHTTP
import RelayStore
import Testing

@testable import RelayOAuth

/// The connections page: nothing before Apple confirms (the same bridge and three-minute window as
/// disconnect), then a short session bound to an HttpOnly cookie in which the person sees only
/// their own connections and ends one or all of them; each form works once, from the page last
/// shown, from this origin.
struct ConnectionsPageTests {
    static let cookie = "__Host-mdr-session"

    /// Opens the page, confirms, signs in as `appleID`: returns the browser (holding the session
    /// cookie) and the callback's answer.
    static func confirm(_ h: OAuthHarness, appleID: String = "alice@example.com", language: String = "en")
        async throws -> (browser: TestBrowser, callback: TestResponse)
    {
        let browser = h.browser()
        browser.acceptLanguage = language
        let page = try await browser.get("/connections")
        #expect(page.status == 200)
        AuthorizeEndpointTests.expectPageHeaders(page)
        let id = try #require(TestBrowser.hidden("request", in: page.text))
        let csrf = try #require(TestBrowser.hidden("csrf", in: page.text))
        let confirmed = try await browser.post("/connections", [("request", id), ("csrf", csrf)])
        #expect(confirmed.status == 303)
        #expect(confirmed.header("location") == h.signIn.url)
        let callback = try await browser.get(h.callbackPath(token: h.signIn.token(for: appleID)))
        return (browser, callback)
    }

    /// `confirm`, then the list.
    static func open(_ h: OAuthHarness, appleID: String = "alice@example.com", language: String = "en")
        async throws -> (browser: TestBrowser, page: TestResponse)
    {
        let (browser, callback) = try await confirm(h, appleID: appleID, language: language)
        #expect(callback.status == 303, "the callback page's POST redirected to a GET (issue 37)")
        #expect(callback.header("location") == OAuthHarness.issuer + "/connections")
        #expect(browser.cookies[cookie] != nil)
        let page = try await browser.get("/connections")
        #expect(page.status == 200)
        AuthorizeEndpointTests.expectPageHeaders(page)
        return (browser, page)
    }

    /// The grant IDs of the page's "End this connection" forms, in page order.
    static func grantIDs(_ page: TestResponse) -> [String] {
        page.text.components(separatedBy: "name=grant value=\"").dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
    }

    static func end(_ browser: TestBrowser, page: TestResponse, grant: String? = nil) async throws -> TestResponse {
        let csrf = try #require(TestBrowser.hidden("csrf", in: page.text))
        var form = [("csrf", csrf), ("action", grant == nil ? "end-all" : "end")]
        if let grant { form.append(("grant", grant)) }
        return try await browser.post("/connections/end", form)
    }

    @Test func beforeAppleConfirmsThePageShowsNothingAboutAnyConnection() async throws {
        try await withHarness { h in
            let alice = try await h.connect()
            let grant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(alice.accessToken))
            let page = try await h.browser().get("/connections")
            #expect(page.text.contains("sign in with Apple"))
            #expect(!page.text.contains("Test Client"))
            #expect(!page.text.contains("claude.ai"))
            #expect(!page.text.contains(grant.grantID))
            #expect(page.text.contains(#"href="/disconnect""#))
            // The disconnect page links here.
            #expect(try await h.browser().get("/disconnect").text.contains(#"href="/connections""#))
        }
    }

    @Test func theListShowsThatPersonsConnectionsOnlyWithWhatTheyMayDo() async throws {
        try await withHarness { h in
            let full = try await h.connect()
            h.clock.advance(by: 60)
            let reader = try await ConsentChoiceTests.consent(h, scope: "todos:read")
            let bob = try await h.connect(appleID: "bob@example.com")
            let bobGrant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(bob.accessToken)).grantID
            let fullGrant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(full.accessToken))
            await h.oauth.recordUse(fullGrant)

            let (browser, page) = try await Self.open(h)
            let text = page.text
            #expect(text.contains("2 AI apps can use your MustDo to-dos."))
            #expect(text.components(separatedBy: "<bdi>Test Client").count == 3)
            #expect(text.components(separatedBy: "Unverified name").count == 3, "both registered themselves")
            #expect(text.contains("Returns to: <span class=host>claude.ai</span>"))
            #expect(text.contains("May: Read and change your to-dos"))
            #expect(text.contains("May: Only read your to-dos"))
            let today = PageDate.format(day: UsageRecorder.day(h.oauth.context.now), locale: .english)
            #expect(today == "January 15, 2027")
            #expect(text.contains("Connected: \(today) · Last used: \(today)"))
            #expect(text.contains("Last used: not yet"))
            #expect(!text.contains(bobGrant))
            #expect(!text.contains("127.0.0.1"), "no IP address on the page")
            let readerGrant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(reader.accessToken))
            #expect(Self.grantIDs(page) == [readerGrant.grantID, fullGrant.grantID], "newest first")

            browser.acceptLanguage = "ja"
            let japanese = try await browser.get("/connections")
            #expect(japanese.text.contains("2 件の AI アプリ"))
            #expect(japanese.text.contains("2027年1月15日"))
            #expect(japanese.text.contains("To-Do の閲覧のみ"))
        }
    }

    @Test func endingOneEndsItsTokensAtOnceAndLeavesTheOthers() async throws {
        try await withHarness { h in
            let first = try await h.connect()
            let second = try await h.connect()
            let bob = try await h.connect(appleID: "bob@example.com")
            let firstGrant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(first.accessToken)).grantID
            let (browser, page) = try await Self.open(h)
            let ended = try await Self.end(browser, page: page, grant: firstGrant)
            #expect(ended.status == 303)
            #expect(ended.header("location") == OAuthHarness.issuer + "/connections")
            #expect(try await h.mcp(first.accessToken).status == 401)
            #expect(try await h.refresh(try #require(first.refreshToken), clientID: first.clientID).status == 400)
            #expect(try await h.mcp(second.accessToken).status == 200)

            let after = try await browser.get("/connections")
            #expect(after.text.contains("Ended 1 connection."))
            #expect(after.text.contains("1 AI app can use your MustDo to-dos."))
            #expect(!Self.grantIDs(after).contains(firstGrant))
            // The notice is shown once.
            let again = try await browser.get("/connections")
            #expect(!again.text.contains("Ended 1 connection."))

            let all = try await Self.end(browser, page: again)
            #expect(all.status == 303)
            #expect(try await h.mcp(second.accessToken).status == 401)
            #expect(try await h.mcp(bob.accessToken).status == 200, "another person's connection stays")
            let none = try await browser.get("/connections")
            #expect(none.text.contains("Ended 1 connection."))
            #expect(none.text.contains("No AI app can use your MustDo to-dos."))
            #expect(!none.text.contains("value=end-all"))
        }
    }

    @Test func aFormCannotEndAnotherPersonsConnection() async throws {
        try await withHarness { h in
            let bob = try await h.connect(appleID: "bob@example.com")
            let bobGrant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(bob.accessToken)).grantID
            _ = try await h.connect()
            let (browser, page) = try await Self.open(h)
            for grant in [bobGrant, "GRANT#" + bobGrant, "nope", String(repeating: "a", count: 65)] {
                let page = try await browser.get("/connections")
                let answer = try await Self.end(browser, page: page, grant: grant)
                #expect(answer.status == 303)
                #expect(try await browser.get("/connections").text.contains("Nothing was ended"))
            }
            #expect(try await h.mcp(bob.accessToken).status == 200)
            _ = page
        }
    }

    @Test func theSessionCookieIsHttpOnlySecureHostOnlyAndItsValueIsNotStored() async throws {
        try await withHarness { h in
            let (browser, callback) = try await Self.confirm(h)
            let set = try #require(callback.headers("set-cookie").first { $0.hasPrefix(Self.cookie + "=") })
            let attributes = Set(set.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(attributes.isSuperset(of: ["HttpOnly", "Secure", "Path=/", "SameSite=Lax", "Max-Age=600"]))
            #expect(!attributes.contains { $0.lowercased().hasPrefix("domain") })
            #expect(callback.header("cache-control") == "no-store")
            let value = try #require(browser.cookies[Self.cookie])
            let stored = try await h.store.scan(pkPrefix: "", cursor: nil, limit: 1000)
            #expect(stored.items.contains { $0.pk.hasPrefix("SESSION#") })
            #expect(!stored.items.contains { $0.pk.contains(value) || "\($0.attributes)".contains(value) })
        }
    }

    @Test func theListNeedsTheSessionCookieAndEndsWithIt() async throws {
        try await withHarness { h in
            let alice = try await h.connect()
            let (browser, page) = try await Self.open(h)
            let csrf = try #require(TestBrowser.hidden("csrf", in: page.text))
            let grant = try #require(Self.grantIDs(page).first)

            // Without the cookie, or with a guessed one: nothing is listed and nothing ends.
            let stranger = h.browser()
            #expect(!(try await stranger.get("/connections")).text.contains(grant))
            stranger.setCookie(Self.cookie, "guessed")
            let guessed = try await stranger.get("/connections")
            #expect(!guessed.text.contains(grant))
            #expect(
                guessed.headers("set-cookie").contains { $0.hasPrefix(Self.cookie + "=;") && $0.contains("Max-Age=0") })
            let forged = try await h.client.postForm(
                "/connections/end", [("csrf", csrf), ("action", "end"), ("grant", grant)])
            #expect(forged.status == 403)
            #expect(forged.text.contains("Confirm with Apple again"))
            #expect(try await h.mcp(alice.accessToken).status == 200)

            // Over after ten minutes, never extended by use.
            h.clock.advance(by: 300)
            _ = try await browser.get("/connections")
            h.clock.advance(by: 301)
            let expired = try await browser.get("/connections")
            #expect(!expired.text.contains(grant))
            #expect(expired.text.contains("sign in with Apple"))
            let late = try await Self.end(browser, page: page, grant: grant)
            #expect(late.status == 403)
            #expect(try await h.mcp(alice.accessToken).status == 200)
        }
    }

    @Test func signingOutEndsTheSession() async throws {
        try await withHarness { h in
            _ = try await h.connect()
            let (browser, page) = try await Self.open(h)
            let csrf = try #require(TestBrowser.hidden("csrf", in: page.text))
            let out = try await browser.post("/connections/end", [("csrf", csrf), ("action", "sign-out")])
            #expect(out.status == 303)
            #expect(browser.cookies[Self.cookie] == nil)
            let stored = try await h.store.scan(pkPrefix: "SESSION#", cursor: nil, limit: 10)
            #expect(stored.items.isEmpty)
        }
    }

    /// CSRF: a form without the token, with a wrong one, with an older page's, sent twice, or
    /// from another site (`Sec-Fetch-Site`) ends nothing.
    @Test func everyFormNeedsTheLatestPagesTokenOnceAndFromThisSite() async throws {
        try await withHarness { h in
            let alice = try await h.connect()
            let (browser, page) = try await Self.open(h)
            let grant = try #require(Self.grantIDs(page).first)
            let csrf = try #require(TestBrowser.hidden("csrf", in: page.text))
            for form in [
                [("action", "end"), ("grant", grant)], [("csrf", "x" + csrf), ("action", "end"), ("grant", grant)],
                [("csrf", csrf), ("csrf", csrf), ("action", "end"), ("grant", grant)],
                [("csrf", csrf), ("action", "explode")],
            ] {
                let refused = try await browser.post("/connections/end", form)
                #expect(refused.status == 400 || refused.status == 403, "\(form): \(refused.status)")
                AuthorizeEndpointTests.expectPageHeaders(refused)
            }
            var cookie = [("Cookie", "\(Self.cookie)=\(try #require(browser.cookies[Self.cookie]))")]
            for site in ["cross-site", "same-site", "none"] {
                let crossSite = try await h.client.postForm(
                    "/connections/end", [("csrf", csrf), ("action", "end-all")],
                    headers: cookie + [("Sec-Fetch-Site", site)])
                #expect(crossSite.status == 403, "\(site)")
            }
            #expect(try await h.mcp(alice.accessToken).status == 200)

            // A newer page makes the older page's forms stale.
            let newer = try await browser.get("/connections")
            let stale = try await Self.end(browser, page: page, grant: grant)
            #expect(stale.status == 403)
            #expect(stale.text.contains("This page is out of date"))
            #expect(try await h.mcp(alice.accessToken).status == 200)

            // The newest page's form works once: a replay (or a racing copy) does nothing.
            cookie.append(("Sec-Fetch-Site", "same-origin"))
            let newerCSRF = try #require(TestBrowser.hidden("csrf", in: newer.text))
            // A constant copy for the two racing requests: a `var` captured by both is a data race
            // to the compiler (reported with --sanitize=thread).
            let headers = cookie
            async let one = h.client.postForm(
                "/connections/end", [("csrf", newerCSRF), ("action", "end"), ("grant", grant)], headers: headers)
            async let two = h.client.postForm(
                "/connections/end", [("csrf", newerCSRF), ("action", "end"), ("grant", grant)], headers: headers)
            let statuses = try await [one.status, two.status].sorted()
            #expect(statuses[0] == 303)
            #expect(statuses[1] == 403 || statuses[1] == 410, "\(statuses)")
            #expect(try await h.mcp(alice.accessToken).status == 401)
            let replay = try await h.client.postForm(
                "/connections/end", [("csrf", newerCSRF), ("action", "end-all")], headers: cookie)
            #expect(replay.status == 403 || replay.status == 410)
        }
    }

    /// The same three-minute rule as disconnect; a connections confirmation cannot finish a
    /// disconnect or an authorization, nor the other way round.
    @Test func confirmingNeedsTheWindowAndTheRightForm() async throws {
        try await withHarness { h in
            let browser = h.browser()
            let page = try await browser.get("/connections")
            let id = try #require(TestBrowser.hidden("request", in: page.text))
            let csrf = try #require(TestBrowser.hidden("csrf", in: page.text))
            #expect(try await browser.post("/disconnect", [("request", id), ("csrf", csrf)]).status == 400)
            #expect(
                try await browser.post("/authorize/consent", [("request", id), ("csrf", csrf), ("action", "continue")])
                    .status == 400)
            let disconnect = try await browser.get("/disconnect")
            let otherID = try #require(TestBrowser.hidden("request", in: disconnect.text))
            let otherCSRF = try #require(TestBrowser.hidden("csrf", in: disconnect.text))
            #expect(try await browser.post("/connections", [("request", otherID), ("csrf", otherCSRF)]).status == 400)

            #expect(try await browser.post("/connections", [("request", id), ("csrf", csrf)]).status == 303)
            h.clock.advance(by: 181)
            let late = try await browser.get(h.callbackPath(token: h.signIn.token(for: "alice@example.com")))
            #expect(CallbackTests.failure(late) == "consent_expired")
            #expect(browser.cookies[Self.cookie] == nil)
        }
    }

    @Test func theCallbackOpensOneSessionOnlyOnce() async throws {
        try await withHarness { h in
            let (browser, callback) = try await Self.confirm(h)
            #expect(callback.status == 303, "the callback page's POST redirected to a GET (issue 37)")
            let path = h.callbackPath(token: h.signIn.token(for: "alice@example.com"))
            let replayed = try await browser.get(path)
            #expect(
                replayed.headers("set-cookie").allSatisfy {
                    !$0.hasPrefix(Self.cookie + "=") || $0.contains("Max-Age=0")
                })
            let sessions = try await h.store.scan(pkPrefix: "SESSION#", cursor: nil, limit: 10)
            #expect(sessions.items.count == 1)
        }
    }
}
