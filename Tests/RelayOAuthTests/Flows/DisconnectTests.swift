import Testing

@testable import RelayOAuth

/// The disconnect page: explains what is stored, confirms through the same sign-in bridge
/// (purpose `disconnect`), deletes every grant of that user, says how many, keeps nothing.
struct DisconnectTests {
    /// Opens the page and confirms: returns the browser, ready for Apple's callback.
    static func confirm(_ h: OAuthHarness) async throws -> TestBrowser {
        let browser = h.browser()
        let page = try await browser.get("/disconnect")
        #expect(page.status == 200)
        AuthorizeEndpointTests.expectPageHeaders(page)
        #expect(page.text.contains("encrypted iCloud sign-in"))
        #expect(page.text.contains("never stores your to-dos"))
        let id = try #require(TestBrowser.hidden("request", in: page.text))
        let csrf = try #require(TestBrowser.hidden("csrf", in: page.text))
        let confirm = try await browser.post("/disconnect", [("request", id), ("csrf", csrf)])
        #expect(confirm.status == 303)
        #expect(confirm.header("location") == h.signIn.url)
        return browser
    }

    @Test func disconnectDeletesEveryGrantOfThatUserOnly() async throws {
        try await withHarness { h in
            let alice1 = try await h.connect(appleID: "alice@example.com")
            let alice2 = try await h.connect(appleID: "alice@example.com")
            let bob = try await h.connect(appleID: "bob@example.com")
            let sealedBefore = h.sealer.sealed.withLock { $0.count }
            let browser = try await Self.confirm(h)
            let done = try await browser.get(h.callbackPath(token: h.signIn.token(for: "alice@example.com")))
            #expect(done.status == 200)
            #expect(done.text.contains("Removed 2 connections."))
            AuthorizeEndpointTests.expectPageHeaders(done)
            #expect(browser.cookies.isEmpty)
            #expect(try await h.mcp(alice1.accessToken).status == 401)
            #expect(try await h.mcp(alice2.accessToken).status == 401)
            #expect(try await h.refresh(try #require(alice1.refreshToken), clientID: alice1.clientID).status == 400)
            #expect(try await h.mcp(bob.accessToken).status == 200)
            #expect(h.sealer.sealed.withLock { $0.count } == sealedBefore, "nothing from that sign-in was sealed")
            let userID = h.oauth.userID(recordName: h.signIn.recordName(for: "alice@example.com"))
            #expect(try await h.store.queryAll(.init(pk: "USER#" + userID)).isEmpty)
        }
    }

    @Test func disconnectWithNothingToRemoveAndInJapanese() async throws {
        try await withHarness { h in
            let browser = try await Self.confirm(h)
            browser.acceptLanguage = "ja"
            let done = try await browser.get(h.callbackPath(token: h.signIn.token(for: "nobody@example.com")))
            #expect(done.text.contains("接続はありませんでした"))
        }
    }

    @Test func disconnectNeedsTheSameBindingAndWindow() async throws {
        try await withHarness { h in
            let alice = try await h.connect()
            let browser = try await Self.confirm(h)
            h.clock.advance(by: 181)
            let late = try await browser.get(h.callbackPath(token: h.signIn.token(for: "alice@example.com")))
            #expect(CallbackTests.failure(late) == "consent_expired")
            #expect(try await h.mcp(alice.accessToken).status == 200, "a refused disconnect deletes nothing")
        }
    }

    @Test func disconnectFormCannotConfirmAnAuthorizationAndViceVersa() async throws {
        try await withHarness { h in
            let (browser, _, id, csrf) = try await ConsentTests.consentPage(h)
            let crossed = try await browser.post("/disconnect", [("request", id), ("csrf", csrf)])
            #expect(crossed.status == 400)
            let page = try await browser.get("/disconnect")
            let disconnectID = try #require(TestBrowser.hidden("request", in: page.text))
            let disconnectCSRF = try #require(TestBrowser.hidden("csrf", in: page.text))
            let other = try await browser.post(
                "/authorize/consent", [("request", disconnectID), ("csrf", disconnectCSRF), ("action", "continue")])
            #expect(other.status == 400)
        }
    }
}
