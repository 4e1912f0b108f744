import Foundation
import RelayEmulator
import RelayJSON
import Testing

/// Issue 42, the speed goal: 5 live to-dos among 5,000 soft-deleted ones cost two CloudKit calls (the change
/// feed and the query) once the Account was read, as the fresh account's one: the Account is remembered with the
/// feed position it is current at (`ListingMemory`), and read again whenever the feed cannot vouch for it.
@Suite struct RememberedAccountToolTests {
    func calls(_ harness: ToolHarness) -> Int { harness.emulator.statistics()["databaseRequests"]?.intValue ?? 0 }
    func zones(_ list: ToolReply) -> [String] {
        list.content["items"]?.arrayValue?.compactMap { $0["timeZone"]?.stringValue } ?? []
    }

    @Test func aLongHistoryCostsTwoCallsOnceTheAccountIsKnown() async throws {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        try LongHistoryToolTests.longHistory(harness, alice, deleted: 5000, completed: 0)
        var before = calls(harness)
        let first = try await harness.call("list_todos", [:], as: alice)
        #expect(first.content["items"]?.arrayValue?.count == 5 && first.content["complete"] == true)
        #expect(calls(harness) - before == 3, "the feed, the Account, the query")
        before = calls(harness)
        let second = try await harness.call("list_todos", [:], as: alice)
        #expect(second.content["items"]?.arrayValue?.count == 5 && second.content["complete"] == true)
        #expect(calls(harness) - before == 2, "the feed and the query")
        before = calls(harness)
        let found = try await harness.call("search", ["query": "water plants"], as: alice)
        #expect(found.content["results"]?.arrayValue?.count == 5, "\(found.content)")
        #expect(calls(harness) - before <= 4, "the feed and the queries, no Account lookup")
    }

    /// The app changes the Account (on the feed: used at once); many changes push the remembered position off the
    /// feed's page (read again); another person is never given the first one's Account.
    @Test func theAccountIsReadAgainWhenTheFeedCannotVouchForIt() async throws {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        try harness.seedAccount(alice, ["timeZone": field("America/New_York")])
        try LongHistoryToolTests.longHistory(harness, alice, deleted: 600, completed: 0)
        try harness.seedTodo(alice, "zoneless", ["title": field("Call mum"), "status": field("pending")])
        let gone = timestamp("2026-06-01T00:00:00Z")
        // Pushes the Account off the feed's newest page.
        try harness.emulator.seed(
            alice.appleID,
            records: LongHistoryToolTests.records("late", 250, title: "x", extra: ["deletedAt": gone]))
        var list = try await harness.call("list_todos", [:], as: alice)
        #expect(zones(list).contains("America/New_York"), "\(list.content)")

        try harness.seedAccount(alice, ["timeZone": field("Asia/Tokyo")])
        var before = calls(harness)
        list = try await harness.call("list_todos", [:], as: alice)
        #expect(zones(list).contains("Asia/Tokyo") && !zones(list).contains("America/New_York"), "\(list.content)")
        #expect(calls(harness) - before == 2, "the changed Account came with the feed")

        // 250 changes later the position the Account was read at is off the page: read again.
        try harness.emulator.seed(
            alice.appleID,
            records: LongHistoryToolTests.records("later", 250, title: "x", extra: ["deletedAt": gone]))
        before = calls(harness)
        list = try await harness.call("list_todos", [:], as: alice)
        #expect(zones(list).contains("Asia/Tokyo"), "\(list.content)")
        #expect(calls(harness) - before == 3, "the Account was looked up again")

        // Bob's records have the same names and his feed the same shape; his Account is his own.
        let bob = try harness.connect("bob@example.com")
        try harness.seedAccount(bob, ["timeZone": field("Europe/Paris")])
        try LongHistoryToolTests.longHistory(harness, bob, deleted: 600, completed: 0)
        try harness.seedTodo(bob, "zoneless", ["title": field("Call mum"), "status": field("pending")])
        try harness.emulator.seed(
            bob.appleID, records: LongHistoryToolTests.records("late", 250, title: "x", extra: ["deletedAt": gone]))
        let bobs = try await harness.call("list_todos", [:], as: bob)
        #expect(zones(bobs).contains("Europe/Paris") && !zones(bobs).contains("Asia/Tokyo"), "\(bobs.content)")
    }
}
