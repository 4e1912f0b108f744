import RelayJSON
import RelayStore
import Testing

@testable import RelayOAuth

/// The person chooses how long a connection lives (issue 44): until they end it (the default), 30
/// days, or 1 day. The choice is stored with the grant and is its hard end: a refresh past it fails
/// with `invalid_grant` and the grant is gone, and no access token outlives it. A forged value and
/// a POST from another origin are refused before anything is recorded.
struct ConnectionLifetimeTests {
    /// Consent with `lifetime` as the form's value (nil: the field left out), sign-in and exchange.
    static func connect(_ h: OAuthHarness, lifetime: String?, appleID: String = "alice@example.com") async throws
        -> Tokens
    {
        let (browser, page, client, verifier) = try await ConsentChoiceTests.page(h)
        var form = [
            ("request", try #require(TestBrowser.hidden("request", in: page.text))),
            ("csrf", try #require(TestBrowser.hidden("csrf", in: page.text))), ("action", "continue"),
        ]
        if let lifetime { form.append(("lifetime", lifetime)) }
        let pressed = try await browser.post("/authorize/consent", form)
        #expect(pressed.status == 303, "consent: \(pressed.text)")
        let back = try await browser.get(h.callbackPath(token: h.signIn.token(for: appleID)))
        let code = try #require(back.locationQuery["code"]?.first, "callback: \(back.status)")
        let exchanged = try await h.exchange(code: code, verifier: verifier, clientID: client)
        #expect(exchanged.status == 200, "exchange: \(exchanged.text)")
        return try Tokens(exchanged, clientID: client)
    }

    /// Refreshes and returns the new tokens (nil: refused, with the error expected).
    static func refresh(_ h: OAuthHarness, _ tokens: Tokens) async throws -> Tokens? {
        let response = try await h.refresh(try #require(tokens.refreshToken), clientID: tokens.clientID)
        guard response.status == 200 else {
            #expect(response.status == 400)
            #expect(try JSONValue(parsing: response.body)["error"]?.stringValue == "invalid_grant")
            return nil
        }
        return try Tokens(response, clientID: tokens.clientID)
    }

    static func grantID(_ h: OAuthHarness, _ tokens: Tokens) async throws -> String {
        try await h.oauth.validateBearer(OAuthHarness.bearerRequest(tokens.accessToken)).grantID
    }

    @Test func theConsentPageOffersTheThreeLifetimesUntilIEndItFirstInBothLanguages() async throws {
        try await withHarness { h in
            let (_, page, _, _) = try await ConsentChoiceTests.page(h)
            #expect(page.text.contains(#"<input type=radio name=lifetime value="until-ended" checked>"#))
            #expect(page.text.contains(#"<input type=radio name=lifetime value="30d">"#))
            #expect(page.text.contains(#"<input type=radio name=lifetime value="1d">"#))
            for words in ["Keep this connection", "Until I end it", "30 days", "1 day"] {
                #expect(page.text.contains(words), "\(words)")
            }
            // The choice is part of the form that "Continue with Apple" sends.
            let form = try #require(page.text.range(of: "<form method=post"))
            let choice = try #require(page.text.range(of: "name=lifetime"))
            let end = try #require(page.text.range(of: "</form>"))
            #expect(form.lowerBound < choice.lowerBound && choice.lowerBound < end.lowerBound)
            let (_, japanese, _, _) = try await ConsentChoiceTests.page(h, language: "ja")
            for words in ["この接続の期間", "解除するまで", "30 日間", "1 日間"] {
                #expect(japanese.text.contains(words), "\(words)")
            }
        }
    }

    @Test func aOneDayConnectionsRefreshFailsAfterADayAndTheGrantIsGone() async throws {
        try await withHarness { h in
            let tokens = try await Self.connect(h, lifetime: "1d")
            let grantID = try await Self.grantID(h, tokens)
            let grant = try #require(try await h.oauth.grants.load(grantID))
            #expect(grant.lifetime == .oneDay)
            #expect(grant.endsAt == grant.createdAt + 86400)
            let stored = try #require(try await h.store.get(OAuthKeys.grant(grantID)))
            #expect(stored.attributes.string("lifetime") == "1d")
            #expect(stored.expiresAt == grant.endsAt)

            // Within the day a refresh works, and its access token stops at the day's end.
            h.clock.advance(by: 86400 - 1800)
            let late = try #require(try await Self.refresh(h, tokens))
            #expect(late.expiresIn <= 1800, "the access token outlives the chosen end: \(late.expiresIn)")
            h.clock.advance(by: 1800)
            #expect(try await Self.refresh(h, late) == nil)
            #expect(try await h.store.get(OAuthKeys.grant(grantID)) == nil)
            let used = try? await h.oauth.validateBearer(OAuthHarness.bearerRequest(late.accessToken))
            #expect(used == nil, "an access token outlived the connection")
        }
    }

    @Test func aThirtyDayConnectionEndsAfterThirtyDaysWhateverTheRefreshes() async throws {
        try await withHarness { h in
            var tokens = try await Self.connect(h, lifetime: "30d")
            let grantID = try await Self.grantID(h, tokens)
            #expect(try await h.oauth.grants.load(grantID)?.lifetime == .thirtyDays)
            for _ in 0..<2 {
                h.clock.advance(by: 14 * 86400)
                tokens = try #require(try await Self.refresh(h, tokens))
            }
            h.clock.advance(by: 2 * 86400 - 600)
            tokens = try #require(try await Self.refresh(h, tokens))
            #expect(tokens.expiresIn <= 600)
            h.clock.advance(by: 600)
            #expect(try await Self.refresh(h, tokens) == nil)
            #expect(try await h.oauth.grants.load(grantID) == nil)
        }
    }

    @Test func theDefaultNeverEndsByTheChosenLifetimeOnlyByTheOperatorsLongest() async throws {
        try await withHarness { h in
            var tokens = try await Self.connect(h, lifetime: nil)
            let grantID = try await Self.grantID(h, tokens)
            let grant = try #require(try await h.oauth.grants.load(grantID))
            #expect(grant.lifetime == .untilEnded)
            #expect(grant.endsAt == grant.createdAt + Int(h.oauth.configuration.lifetimes.grant.components.seconds))
            // Past one day and past thirty, a refreshed connection goes on.
            for _ in 0..<4 {
                h.clock.advance(by: 20 * 86400)
                tokens = try #require(try await Self.refresh(h, tokens))
            }
            #expect(try await h.oauth.grants.load(grantID) != nil)
            #expect(tokens.expiresIn == 3600)
        }
    }

    @Test func aForgedLifetimeIsRefusedAndRecordsNothing() async throws {
        try await withHarness { h in
            for forged in ["365d", "-1", "86400", "", "1D", "until-ended ", "never"] {
                let (browser, page, _, _) = try await ConsentChoiceTests.page(h)
                let requestID = try #require(TestBrowser.hidden("request", in: page.text))
                let pressed = try await browser.post(
                    "/authorize/consent",
                    [
                        ("request", requestID), ("csrf", try #require(TestBrowser.hidden("csrf", in: page.text))),
                        ("action", "continue"), ("lifetime", forged),
                    ])
                #expect(pressed.status == 400, "\(forged): \(pressed.status)")
                #expect(pressed.header("location") == nil)
                let record = try #require(try await h.oauth.pending.load(requestID))
                #expect(record.status == .pending && record.lifetime == nil, "\(forged) was recorded")
            }
            // Twice the field (a valid and a forged value) is refused too.
            let (browser, page, _, _) = try await ConsentChoiceTests.page(h)
            let twice = try await browser.post(
                "/authorize/consent",
                [
                    ("request", try #require(TestBrowser.hidden("request", in: page.text))),
                    ("csrf", try #require(TestBrowser.hidden("csrf", in: page.text))), ("action", "continue"),
                    ("lifetime", "1d"), ("lifetime", "until-ended"),
                ])
            #expect(twice.status == 400)
        }
    }

    @Test func aConsentPOSTFromAnotherOriginIsRefusedBeforeAnythingIsRecorded() async throws {
        try await withHarness { h in
            let (browser, page, _, _) = try await ConsentChoiceTests.page(h)
            let requestID = try #require(TestBrowser.hidden("request", in: page.text))
            let form = [
                ("request", requestID), ("csrf", try #require(TestBrowser.hidden("csrf", in: page.text))),
                ("action", "continue"), ("lifetime", "until-ended"),
            ]
            for site in ["cross-site", "same-site", "none"] {
                // Even with this browser's cookie and the page's CSRF token, as a page of another
                // site would send it were the cookie not SameSite.
                let forged = try await browser.post(
                    "/authorize/consent", form, headers: [("Sec-Fetch-Site", site), ("Origin", "https://evil.example")])
                #expect(forged.status == 403, "\(site): \(forged.status)")
                let record = try #require(try await h.oauth.pending.load(requestID))
                #expect(record.status == .pending && record.csrfHash != nil, "\(site) spent the form")
            }
            let real = try await browser.post("/authorize/consent", form, headers: [("Sec-Fetch-Site", "same-origin")])
            #expect(real.status == 303)
        }
    }

    @Test func theConnectionsPageShowsEachConnectionsLifetime() async throws {
        try await withHarness { h in
            _ = try await Self.connect(h, lifetime: "1d")
            h.clock.advance(by: 60)
            _ = try await Self.connect(h, lifetime: nil)
            let (_, page) = try await ConnectionsPageTests.open(h)
            #expect(page.text.contains("Lasts: 1 day (until "), "\(page.text)")
            #expect(page.text.contains("Lasts: until you end it (at the latest until "))
            let (_, japanese) = try await ConnectionsPageTests.open(h, language: "ja")
            #expect(japanese.text.contains("期間: 1 日間 ("))
            #expect(japanese.text.contains("期間: 解除するまで (最長 "))
        }
    }
}
