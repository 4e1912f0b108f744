import Testing

@testable import RelayOAuth

/// The link that lets a person sign in to iCloud again for a grant whose CloudKit token died
/// (issue 39, `Reconnections`): a day long, single use, only for a grant that still waits, and a
/// waiting grant still ends by revocation as any other.
@Suite struct SignInAgainLinkTests {
    /// The link's path and query, as the browser would open it at this server.
    static func path(_ link: String) -> String { String(link.dropFirst(OAuthHarness.issuer.count)) }

    @Test func aLinkLastsADayOpensOnceAndOnlyWhileTheGrantWaits() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            let grant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(tokens.accessToken))
            let stored = try #require(try await h.oauth.sealedToken(grantID: grant.grantID))
            #expect(stored.waitingSince == nil)
            #expect(
                try await h.oauth.markWaitingForSignIn(grantID: grant.grantID, expectedVersion: stored.version) != nil)
            #expect(try await h.oauth.sealedToken(grantID: grant.grantID)?.waitingSince != nil)

            // Expired: a day and a second later the link opens nothing.
            let old = try await h.oauth.signInAgainLink(grantID: grant.grantID)
            #expect(old.hasPrefix(OAuthHarness.issuer + "/reconnect?h="))
            h.clock.advance(by: 86_401)
            #expect(try await h.browser().get(Self.path(old)).status == 410)

            // Within the day: opening the page (a link preview, a second look) spends nothing; the
            // first "Continue with Apple" spends it, a second tab's is refused.
            let fresh = try await h.oauth.signInAgainLink(grantID: grant.grantID)
            h.clock.advance(by: 86_000)
            let (person, other) = (h.browser(), h.browser())
            let page = try await person.get(Self.path(fresh))
            #expect(page.status == 200)
            #expect(page.text.contains("data-tab="))
            let otherPage = try await other.get(Self.path(fresh))
            #expect(otherPage.status == 200)
            func pressContinue(_ browser: TestBrowser, _ page: TestResponse) async throws -> TestResponse {
                let requestID = try #require(TestBrowser.hidden("request", in: page.text))
                let csrf = try #require(TestBrowser.hidden("csrf", in: page.text))
                return try await browser.post("/reconnect", [("request", requestID), ("csrf", csrf)])
            }
            #expect(try await pressContinue(person, page).status == 303)
            #expect(try await pressContinue(other, otherPage).status == 410)
            #expect(try await h.browser().get(Self.path(fresh)).status == 410)

            // A saved rotation ends the waiting (a live token exists): a link minted before opens nothing.
            let before = try await h.oauth.signInAgainLink(grantID: grant.grantID)
            let now = try #require(try await h.oauth.sealedToken(grantID: grant.grantID))
            #expect(
                try await h.oauth.replaceSealed(
                    grantID: grant.grantID, expectedVersion: now.version, sealed: now.sealed)
                    != nil)
            #expect(try await h.oauth.sealedToken(grantID: grant.grantID)?.waitingSince == nil)
            #expect(try await h.browser().get(Self.path(before)).status == 410)
        }
    }

    @Test func aWaitingGrantStillEndsWhenRevoked() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            let grant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(tokens.accessToken))
            let stored = try #require(try await h.oauth.sealedToken(grantID: grant.grantID))
            _ = try await h.oauth.markWaitingForSignIn(grantID: grant.grantID, expectedVersion: stored.version)
            let link = try await h.oauth.signInAgainLink(grantID: grant.grantID)
            let revoked = try await h.client.postForm(
                "/revoke", [("token", try #require(tokens.refreshToken)), ("client_id", tokens.clientID)])
            #expect(revoked.status == 200)
            #expect(try await h.oauth.sealedToken(grantID: grant.grantID) == nil)
            #expect(try await h.mcp(tokens.accessToken).status == 401)
            #expect(try await h.browser().get(Self.path(link)).status == 410)
        }
    }
}
