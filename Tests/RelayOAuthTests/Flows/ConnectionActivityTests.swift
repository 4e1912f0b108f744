import RelayJSON
import RelayStore
import RelayTestSupport
import Testing

@testable import RelayOAuth

/// What each connection did (issue 44): counts per UTC day and action, kept in the grant's own
/// partition with only action names and numbers, shown on that person's connections page beside
/// the end button, gone with the grant, kept 30 days at most, and never able to fail a tool call.
struct ConnectionActivityTests {
    static func bearer(_ h: OAuthHarness, _ tokens: Tokens) async throws -> BearerGrant {
        try await h.oauth.validateBearer(OAuthHarness.bearerRequest(tokens.accessToken))
    }

    /// The section of the page for the grant whose end form names `grantID`.
    static func row(_ page: TestResponse, grantID: String) -> String? {
        page.text.components(separatedBy: "<section class=card>").first { $0.contains("value=\"\(grantID)\"") }
    }

    @Test func countsAddUpPerDayAndActionAndTheItemHoldsOnlyNamesAndNumbers() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            let grant = try await Self.bearer(h, tokens)
            await h.oauth.recordActivity(grant, action: .added, count: 3)
            await h.oauth.recordActivity(grant, action: .completed, count: 1)
            await h.oauth.recordActivity(grant, action: .snoozed, count: 2)
            await h.oauth.recordActivity(grant, action: .added, count: 0)  // nothing to count
            let today = UsageRecorder.day(h.clock.epochSeconds())
            let item = try #require(try await h.store.get(OAuthKeys.activity(grant.grantID, day: today)))
            #expect(item.sk == "ACT#" + String(today).leftPadded(to: 6))
            #expect(item.attributes == ["added": 3, "completed": 1, "snoozed": 2] as JSONObject)
            #expect(item.expiresAt == (today + 30) * 86400)
            h.clock.advance(by: 86400)
            await h.oauth.recordActivity(grant, action: .deleted, count: 1)
            await h.oauth.recordActivity(grant, action: .undone, count: 1)
            let days = try await h.oauth.activity.recent(grantID: grant.grantID)
            #expect(days.map(\.day) == [today + 1, today])
            #expect(days.first?.counts == [.deleted: 1, .undone: 1])
        }
    }

    @Test func theConnectionsPageShowsEachConnectionsCountsBesideItsEndButtonInBothLanguages() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            let grant = try await Self.bearer(h, tokens)
            await h.oauth.recordActivity(grant, action: .added, count: 3)
            await h.oauth.recordActivity(grant, action: .completed, count: 1)
            await h.oauth.recordActivity(grant, action: .snoozed, count: 2)
            let quiet = try await h.connect()
            let quietGrant = try await Self.bearer(h, quiet)
            let (_, page) = try await ConnectionsPageTests.open(h)
            let row = try #require(Self.row(page, grantID: grant.grantID))
            #expect(row.contains("What it did in the last 30 days"))
            #expect(row.contains("added 3 · completed 1 · snoozed 2 · deleted 0"), "\(row)")
            #expect(!row.contains("updated"), "an action that did not happen beyond the four is left out")
            let today = PageDate.format(day: UsageRecorder.day(h.clock.epochSeconds()), locale: .english)
            #expect(row.contains("<span class=day>\(today)</span> added 3"))
            // The counts come before the end button of the same card.
            let counts = try #require(row.range(of: "added 3"))
            let end = try #require(row.range(of: "value=end"))
            #expect(counts.lowerBound < end.lowerBound)
            let quietRow = try #require(Self.row(page, grantID: quietGrant.grantID))
            #expect(quietRow.contains("Nothing changed in the last 30 days."))
            let (_, japanese) = try await ConnectionsPageTests.open(h, language: "ja")
            let japaneseRow = try #require(Self.row(japanese, grantID: grant.grantID))
            #expect(japaneseRow.contains("過去 30 日間にしたこと"))
            #expect(japaneseRow.contains("追加 3 · 完了 1 · スヌーズ 2 · 削除 0"))
        }
    }

    @Test func anotherPersonsPageNeverShowsTheseCounts() async throws {
        try await withHarness { h in
            let alice = try await h.connect(appleID: "alice@example.com")
            let grant = try await Self.bearer(h, alice)
            await h.oauth.recordActivity(grant, action: .deleted, count: 7)
            let bob = try await h.connect(appleID: "bob@example.com")
            let bobGrant = try await Self.bearer(h, bob)
            let (bobBrowser, page) = try await ConnectionsPageTests.open(h, appleID: "bob@example.com")
            #expect(!page.text.contains("deleted 7"))
            #expect(!page.text.contains(grant.grantID))
            #expect(Self.row(page, grantID: bobGrant.grantID)?.contains("Nothing changed") == true)
            // Bob's session naming Alice's grant in the end form ends nothing, and her counts stay.
            let ended = try await ConnectionsPageTests.end(bobBrowser, page: page, grant: grant.grantID)
            #expect(ended.status == 303)
            #expect(try await h.oauth.activity.recent(grantID: grant.grantID).first?.counts[.deleted] == 7)
        }
    }

    @Test func countsGoWhenTheConnectionEndsAndALateCountDoesNotBringThemBack() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            let grant = try await Self.bearer(h, tokens)
            await h.oauth.recordActivity(grant, action: .added, count: 2)
            let (browser, page) = try await ConnectionsPageTests.open(h)
            let ended = try await ConnectionsPageTests.end(browser, page: page, grant: grant.grantID)
            #expect(ended.status == 303)
            let left = try await h.store.queryAll(OAuthKeys.grantActivity(grant.grantID))
            #expect(left.isEmpty, "counts outlived the connection: \(left)")
            // A tool call that was answered before the end, counted after it.
            await h.oauth.recordActivity(grant, action: .completed, count: 1)
            #expect(try await h.store.queryAll(OAuthKeys.grantActivity(grant.grantID)).isEmpty)

            // Disconnect ends them too.
            let other = try await Self.bearer(h, try await h.connect())
            await h.oauth.recordActivity(other, action: .snoozed, count: 1)
            #expect(try await h.oauth.admin.disconnect(userID: other.userID) == 1)
            #expect(try await h.store.queryAll(OAuthKeys.grantActivity(other.grantID)).isEmpty)
        }
    }

    @Test func countsAreKeptThirtyDaysAtMostAndNeverPastTheConnectionsEnd() async throws {
        try await withHarness { h in
            let tokens = try await h.connect()
            let grant = try await Self.bearer(h, tokens)
            await h.oauth.recordActivity(grant, action: .added, count: 1)
            h.clock.advance(by: 29 * 86400)
            #expect(try await h.oauth.activity.recent(grantID: grant.grantID).count == 1)
            h.clock.advance(by: 86400)
            #expect(try await h.oauth.activity.recent(grantID: grant.grantID).isEmpty)
            #expect(try await h.store.queryAll(OAuthKeys.grantActivity(grant.grantID)).isEmpty, "not pruned")

            let oneDay = try await ConnectionLifetimeTests.connect(h, lifetime: "1d")
            let short = try await Self.bearer(h, oneDay)
            await h.oauth.recordActivity(short, action: .added, count: 1)
            let item = try #require(
                try await h.store.queryAll(OAuthKeys.grantActivity(short.grantID)).first)
            #expect(item.expiresAt == short.grantEndsAt)
        }
    }

    @Test func aFailingStoreDropsTheCountAndSaysSo() async throws {
        let h = try await OAuthHarness.start(wrap: { FailingStore($0) })
        try await withCleanup {
            let tokens = try await h.connect()
            let grant = try await Self.bearer(h, tokens)
            let failing = try #require(h.store as? FailingStore)
            failing.fail(with: .unavailable("down"))
            await h.oauth.recordActivity(grant, action: .added, count: 1)
            #expect(h.recordedEvents.contains(.failure("activity count not written")))
            failing.fail(with: nil)
            #expect(try await h.oauth.activity.recent(grantID: grant.grantID).isEmpty)
            await h.oauth.recordActivity(grant, action: .added, count: 1)
            #expect(try await h.oauth.activity.recent(grantID: grant.grantID).first?.counts == [.added: 1])
        } cleanup: {
            await h.stop()
        }
    }

    @Test func concurrentCountsOfOneGrantAllLand() async throws {
        try await withHarness { h in
            let grant = try await Self.bearer(h, try await h.connect())
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        await h.oauth.recordActivity(grant, action: index % 2 == 0 ? .added : .completed, count: 1)
                    }
                }
            }
            // A count noted while another write of the grant was in flight is written by that writer.
            var counts: [ConnectionAction: Int] = [:]
            for _ in 0..<50 {
                counts = try await h.oauth.activity.recent(grantID: grant.grantID).first?.counts ?? [:]
                if counts == [.added: 20, .completed: 20] { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(counts == [.added: 20, .completed: 20])
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
