import RelayHTTP
import RelayJSON
import RelayStore
import Testing

@testable import RelayOAuth

/// The connections page's "Sign in to iCloud again" button (issue 39 follow-up): a connection waiting
/// for an iCloud sign-in shows a form, not a link, so a view writes no `RECONNECT#` item; pressing it
/// makes one link, for that grant, and goes to it. (Through the real server and its SQLite file:
/// `SignInAgainButtonTests` in AcceptanceTests; in Chromium: `SignInAgainBrowserTests`.)
struct ConnectionsSignInButtonTests {
    static func links(_ h: OAuthHarness) async throws -> Int {
        try await h.store.scan(pkPrefix: "RECONNECT#", cursor: nil, limit: 100).items.count
    }

    static func wait(_ h: OAuthHarness, _ accessToken: String) async throws -> String {
        let grant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(accessToken)).grantID
        let stored = try #require(try await h.oauth.sealedToken(grantID: grant))
        #expect(try await h.oauth.markWaitingForSignIn(grantID: grant, expectedVersion: stored.version) != nil)
        return grant
    }

    @Test func aViewShowsAButtonAndOnlyPressingItMakesALink() async throws {
        try await withHarness { h in
            let alice = try await h.connect()
            let working = try await h.connect()
            let bob = try await h.connect(appleID: "bob@example.com")
            let grant = try await Self.wait(h, alice.accessToken)
            let bobGrant = try await Self.wait(h, bob.accessToken)
            let (browser, first) = try await ConnectionsPageTests.open(h)
            var page = first
            for language in ["en", "ja", "en"] {
                browser.acceptLanguage = language
                page = try await browser.get("/connections")
                AuthorizeEndpointTests.expectPageHeaders(page)
                #expect(!page.text.contains("/reconnect"))
                #expect(page.text.components(separatedBy: "value=sign-in>").count == 2, "one button: one waiting grant")
                let words =
                    language == "ja"
                    ? ["iCloud へのサインインが必要です", "もう一度 iCloud にサインイン"]
                    : ["Needs iCloud sign-in", "Sign in to iCloud again"]
                #expect(words.allSatisfy { page.text.contains($0) }, "\(language)")
            }
            #expect(try await Self.links(h) == 0, "no view made a link")
            let workingGrant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(working.accessToken))
            #expect(page.text.contains("value=\"\(grant)\">\n<button class=primary"), "the button names its grant")
            #expect(!page.text.contains("value=\"\(workingGrant.grantID)\">\n<button class=primary"))

            // Another person's waiting grant, or a working one of one's own: back to the page, no link.
            for other in [bobGrant, workingGrant.grantID, "GRANT#" + grant, String(repeating: "a", count: 65)] {
                let page = try await browser.get("/connections")
                let csrf = try #require(TestBrowser.hidden("csrf", in: page.text))
                let answer = try await browser.post(
                    "/connections/end", [("csrf", csrf), ("action", "sign-in"), ("grant", other)])
                #expect(answer.status == 303)
                #expect(answer.header("location") == OAuthHarness.issuer + "/connections")
            }
            #expect(try await Self.links(h) == 0)

            // The button: one link, whose page is for this grant.
            page = try await browser.get("/connections")
            let csrf = try #require(TestBrowser.hidden("csrf", in: page.text))
            let pressed = try await browser.post(
                "/connections/end", [("csrf", csrf), ("action", "sign-in"), ("grant", grant)])
            #expect(pressed.status == 303)
            AuthorizeEndpointTests.expectPageHeaders(pressed)
            let link = try #require(pressed.header("location"))
            #expect(link.hasPrefix(OAuthHarness.issuer + "/reconnect?h="))
            #expect(try await Self.links(h) == 1)
            let item = try #require(try await h.store.scan(pkPrefix: "RECONNECT#", cursor: nil, limit: 1).items.first)
            #expect(item.attributes.string("grant") == grant)
            #expect(try await h.browser().get(SignInAgainLinkTests.path(link)).status == 200)
        }
    }
}
