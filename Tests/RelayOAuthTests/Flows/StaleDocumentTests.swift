import Foundation
import RelayCrypto
import RelayHTTP
import RelayJSON
import RelayStore
import Testing

@testable import RelayOAuth

/// Client ID metadata documents whose host fails: the last good copy is used for a bounded time
/// (RFC 5861 stale-if-error), cache headers are honoured within bounds, refreshes run in the
/// background one at a time, and a document that is gone or refused is dropped at once.
struct StaleDocumentTests {
    static let url = ClientMetadataDocumentTests.claudeURL
    static let document = ClientMetadataDocumentTests.claudeDocument
    static let renamed = document.replacingOccurrences(
        of: "\"client_name\":\"Claude\"", with: "\"client_name\":\"Claude 2\"")

    static func serve(_ h: OAuthHarness, _ json: String = document, cache: String = "max-age=600") {
        h.fetcher.serve(url, json: json, headers: ["Content-Type": "application/json", "Cache-Control": cache])
    }

    static func authorize(_ h: OAuthHarness) async throws -> TestResponse {
        try await h.browser().get(OAuthHarness.authorizePath(clientID: url, verifier: OAuthHarness.newVerifier()))
    }

    static func cachedName(_ h: OAuthHarness) async throws -> String? {
        let key = OAuthKeys.metadataDocument(Base64URL.encode(SHA256.hash(url)))
        return try await h.store.get(key)?.attributes.string("name")
    }

    /// Waits (on the test's own time, never blocking a thread) until `condition` holds.
    static func until(_ what: String, _ condition: () async throws -> Bool) async throws {
        for _ in 0..<3000 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("timed out waiting for \(what)")
    }

    @Test func cacheHeadersWithinBounds() {
        func lifetime(_ headers: HTTPHeaders) -> (Int, Int) {
            let l = ClientMetadataPolicy.cacheLifetime(headers, maximumFresh: 86400, maximumStale: 3600)
            return (l.fresh, l.stale)
        }
        #expect(lifetime(["Cache-Control": "max-age=600"]) == (600, 3600))
        #expect(lifetime(["Cache-Control": "max-age=600, stale-if-error=60"]) == (600, 60), "a shorter value wins")
        #expect(lifetime(["Cache-Control": "max-age=600, stale-if-error=999999"]) == (600, 3600))
        #expect(lifetime(["Cache-Control": "max-age=600, must-revalidate"]) == (600, 0))
        #expect(lifetime(["Cache-Control": "max-age=600", "Age": "100"]) == (500, 3600))
        #expect(lifetime(["Cache-Control": "max-age=9999999"]) == (86400, 3600))
        #expect(lifetime(["Cache-Control": "no-store"]) == (0, 0))
        #expect(lifetime(["Cache-Control": "no-cache"]) == (0, 0))
        #expect(lifetime([:]) == (300, 3600))
        #expect(lifetime(["Cache-Control": "max-age=abc"]) == (0, 3600), "malformed: stale at once")
    }

    @Test func aHostThatFailsIsPaperedOverWithTheLastGoodCopyForABoundedTime() async throws {
        let settings: (inout OAuthConfiguration) -> Void = {
            $0.lifetimes.metadataDocumentStaleIfError = .seconds(3600)
        }
        try await withHarness(configure: settings) { h in
            Self.serve(h)
            #expect(try await Self.authorize(h).status == 200)
            #expect(h.fetcher.fetchCount == 1)
            // The host answers 503 once the copy is stale: the copy is used, and the event says so.
            h.fetcher.serve(Self.url, json: "<html>busy</html>", status: 503, headers: ["Content-Type": "text/html"])
            h.clock.advance(by: 601)
            let stale = try await Self.authorize(h)
            #expect(stale.status == 200, "\(stale.text)")
            #expect(h.fetcher.fetchCount == 2)
            #expect(h.recordedEvents.contains { if case .metadataDocumentStale = $0 { true } else { false } })
            // A failed host is not asked again on every request (back-off).
            #expect(try await Self.authorize(h).status == 200)
            #expect(h.fetcher.fetchCount == 2)
            // Down altogether (no answer): still the copy, after the back-off.
            h.fetcher.remove(Self.url)
            h.clock.advance(by: 10)
            #expect(try await Self.authorize(h).status == 200)
            #expect(h.fetcher.fetchCount == 3)
            // Past stale-if-error the copy is gone: the client cannot start a new connection.
            h.clock.advance(by: 3600)
            let gone = try await Self.authorize(h)
            #expect(gone.status == 400, "\(gone.text)")
        }
    }

    @Test func mustRevalidateTurnsStaleUseOff() async throws {
        try await withHarness { h in
            Self.serve(h, cache: "max-age=600, must-revalidate")
            let fresh = try await Self.authorize(h)
            #expect(fresh.status == 200)
            h.fetcher.remove(Self.url)
            h.clock.advance(by: 601)
            #expect(try await Self.authorize(h).status == 400)
        }
    }

    @Test func aDocumentThatIsGoneIsDroppedAtOnce() async throws {
        try await withHarness { h in
            Self.serve(h)
            let fresh = try await Self.authorize(h)
            #expect(fresh.status == 200)
            h.fetcher.serve(Self.url, json: "{}", status: 404)
            h.clock.advance(by: 601)
            #expect(try await Self.authorize(h).status == 400)
            #expect(try await Self.cachedName(h) == nil)
        }
    }

    @Test func aSlowHostDoesNotHoldUpRequestsAndIsFetchedOnceAtATime() async throws {
        try await withHarness { h in
            Self.serve(h)
            #expect(try await Self.authorize(h).status == 200)
            h.clock.advance(by: 601)
            Self.serve(h, Self.renamed)
            h.fetcher.holding.withLock { $0 = true }
            // Three requests while the host hangs: each gets the stale copy after at most the
            // stale wait (1 s), and the host sees one fetch.
            async let one = Self.authorize(h)
            async let two = Self.authorize(h)
            async let three = Self.authorize(h)
            let pages = try await [one, two, three]
            #expect(pages.allSatisfy { $0.status == 200 })
            #expect(pages.allSatisfy { $0.text.contains("Claude") })
            #expect(h.fetcher.fetchCount == 2, "single-flight: one fetch for the three")
            #expect(try await Self.cachedName(h) == "Claude")
            // The host answers at last: the fetch that went on in the background updates the copy.
            h.fetcher.holding.withLock { $0 = false }
            try await Self.until("the background fetch's copy") { try await Self.cachedName(h) == "Claude 2" }
            #expect(try await Self.authorize(h).text.contains("Claude 2"))
            #expect(h.fetcher.fetchCount == 2)
        }
    }

    @Test func aChangedDocumentIsRefreshedInTheBackgroundBeforeItGoesStale() async throws {
        try await withHarness { h in
            Self.serve(h, cache: "max-age=1000")
            #expect(try await Self.authorize(h).status == 200)
            Self.serve(h, Self.renamed, cache: "max-age=1000")
            h.clock.advance(by: 500)
            #expect(try await Self.authorize(h).status == 200)
            #expect(h.fetcher.fetchCount == 1, "fresh and not yet in its last tenth: no fetch")
            h.clock.advance(by: 410)
            let page = try await Self.authorize(h)
            #expect(!page.text.contains("Claude 2"), "the fresh copy answers at once")
            try await Self.until("the refreshed copy") { try await Self.cachedName(h) == "Claude 2" }
            #expect(h.fetcher.fetchCount == 2)
        }
    }

    @Test func anExistingConnectionRefreshesWhileTheHostIsDownEvenWithoutACopy() async throws {
        try await withHarness { h in
            Self.serve(h)
            let verifier = OAuthHarness.newVerifier()
            let code = try await h.code(clientID: Self.url, verifier: verifier)
            let exchanged = try await h.exchange(code: code, verifier: verifier, clientID: Self.url)
            #expect(exchanged.status == 200)
            let tokens = try Tokens(exchanged, clientID: Self.url)
            // The copy is gone (past its stale time) and the host does not answer.
            h.fetcher.remove(Self.url)
            h.clock.advance(by: 86400 + 601)
            #expect(try await Self.cachedName(h) == nil)
            let refreshed = try await h.refresh(try #require(tokens.refreshToken), clientID: Self.url)
            #expect(refreshed.status == 200, "\(refreshed.text)")
            let fallback = OAuthEvent.metadataDocumentStale(reason: "host failed or slow, no copy: public client")
            #expect(h.recordedEvents.contains(fallback))
        }
    }
}
