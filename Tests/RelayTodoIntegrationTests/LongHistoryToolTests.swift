import Foundation
import RelayEmulator
import RelayJSON
import Testing

/// Issue 42, Build 1 and 2, through the real tool path and the Apple-strict emulator (production schema, query
/// index lag on by default): live to-dos among thousands of soft-deleted and finished ones are all listed and
/// found, within a stated number of CloudKit calls, and what was just written shows at once.
@Suite struct LongHistoryToolTests {
    /// `count` records named `prefix0000…`, one-offs due from 2026-06-01 a minute apart, with `extra` fields.
    static func records(_ prefix: String, _ count: Int, title: String, extra: JSONObject) -> [JSONValue] {
        (0..<count).map { index in
            var fields: JSONObject = [
                "title": field(.string(title)), "status": field("pending"), "source": field("app"),
                "timeZone": field("UTC"), "dueAt": field(.int(1_780_272_000_000 + index * 60_000), "TIMESTAMP"),
            ]
            for (key, value) in extra { fields[key] = value }
            return [
                "recordName": .string(String(format: "\(prefix)%04d", index)), "recordType": "Todo",
                "fields": .object(fields),
            ]
        }
    }

    /// 5 live pending to-dos among `deleted` soft-deleted ones (half of them still pending, as a to-do deleted
    /// before it was done is) and `completed` done ones.
    static func longHistory(_ harness: ToolHarness, _ user: ToolHarness.User, deleted: Int, completed: Int) throws {
        let gone = timestamp("2026-06-01T00:00:00Z")
        var all = records("live", 5, title: "Water plants", extra: [:])
        all += records("gonep", deleted / 2, title: "Water plants", extra: ["deletedAt": gone])
        all += records(
            "goned", deleted - deleted / 2, title: "Water plants",
            extra: ["deletedAt": gone, "status": field("done")])
        all += records(
            "done", completed, title: "Water plants",
            extra: ["status": field("done"), "completedAt": timestamp("2026-06-02T00:00:00Z")])
        try harness.emulator.seed(user.appleID, records: all)
    }

    func ids(_ list: JSONValue?) -> [String] { list?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }

    func queries(_ harness: ToolHarness) -> Int {
        harness.emulator.statistics()["operations"]?["records/query"]?.intValue ?? 0
    }
    func calls(_ harness: ToolHarness) -> Int { harness.emulator.statistics()["databaseRequests"]?.intValue ?? 0 }

    /// (query page size, where records without `deletedAt` sort)
    @Test(arguments: [(100, "first"), (100, "last"), (200, "first"), (200, "last"), (37, "first")])
    func fiveLiveAmongFiveThousandDeletedAndTwoThousandCompleted(pageSize: Int, missing: String) async throws {
        var settings = EmulatorSettings()
        settings.queryPageSize = pageSize
        settings.missingSortValues = missing
        let harness = try ToolHarness(settings: settings)
        let alice = try harness.connect()
        try Self.longHistory(harness, alice, deleted: 5000, completed: 2000)
        let before = calls(harness)
        let list = try await harness.call("list_todos", [:], as: alice)
        #expect(!list.isError, "\(list)")
        #expect(ids(list.content["items"]) == ["live0000", "live0001", "live0002", "live0003", "live0004"])
        #expect(list.content["complete"] == true && list.content["warning"] == nil, "\(list.content)")
        // changes/zone, the Account, and the live to-dos (one page each way when they sort last).
        let listCalls = calls(harness) - before
        #expect(listCalls <= (missing == "first" ? 3 : 4), "\(listCalls) calls")

        let found = try await harness.call("search", ["query": "water plants"], as: alice)
        let hits = ids(found.content["results"])
        #expect(Array(hits.prefix(5)) == ["live0000", "live0001", "live0002", "live0003", "live0004"], "\(hits)")
        #expect(!hits.contains { $0.hasPrefix("gone") })
        // Finished ones are searched within the same budget: 2,000 of them fit at 200 a page, not at 100.
        let searchComplete = found.content["complete"]?.boolValue
        #expect(searchComplete == (pageSize >= 200), "\(found.content)")
        if searchComplete == false {
            #expect(found.content["warning"]?.stringValue?.contains("may be incomplete") == true)
        }
    }

    @Test func aBudgetReachedIsSaidNeverACut() async throws {
        var settings = EmulatorSettings()
        settings.queryPageSize = 100
        let harness = try ToolHarness(settings: settings)
        let alice = try harness.connect()
        try Self.longHistory(harness, alice, deleted: 300, completed: 2100)
        let all = try await harness.call("list_todos", ["status": "all"], as: alice)
        #expect(!all.isError, "\(all)")
        #expect(all.content["complete"] == false, "\(all.content)")
        let warning = try #require(all.content["warning"]?.stringValue)
        #expect(warning.contains("may be incomplete") && warning.contains("Tell the user"), "\(warning)")
        #expect(all.text.contains("may be incomplete"))
        // The pending ones are complete: the status filter is in the query.
        let pending = try await harness.call("list_todos", [:], as: alice)
        #expect(pending.content["complete"] == true)
        #expect(ids(pending.content["items"]).count == 5)
    }

    @Test func aFreshAccountAndALongHistoryCostTheSameCalls() async throws {
        let harness = try ToolHarness()
        let fresh = try harness.connect("fresh@example.com")
        try harness.emulator.seed(fresh.appleID, records: Self.records("live", 5, title: "x", extra: [:]))
        let heavy = try harness.connect("heavy@example.com")
        try Self.longHistory(harness, heavy, deleted: 5000, completed: 0)
        var before = calls(harness)
        _ = try await harness.call("list_todos", [:], as: fresh)
        let freshCalls = calls(harness) - before
        before = calls(harness)
        let list = try await harness.call("list_todos", [:], as: heavy)
        let heavyCalls = calls(harness) - before
        #expect(ids(list.content["items"]).count == 5)
        #expect(freshCalls == 1, "a fresh account is one changes/zone page")
        #expect(heavyCalls <= 3, "\(heavyCalls)")
    }

    /// Add, complete and delete, each followed at once by list and search, while the index lags (3 s by default,
    /// here 60 s so the test cannot outrun it), for a small account (the feed is the whole zone) and a long one
    /// (the query is needed and lags).
    @Test(arguments: [0, 600])
    func writesShowInTheNextListAndSearch(history: Int) async throws {
        var settings = EmulatorSettings()
        settings.indexLag = .milliseconds(60_000)
        let harness = try ToolHarness(settings: settings)
        let alice = try harness.connect()
        if history > 0 { try Self.longHistory(harness, alice, deleted: history, completed: 0) }
        try harness.seedAppTodo(alice, "old", title: "Old errand", due: "2026-06-11T09:00:00Z")

        let added = try await harness.call("add_todo", ["title": "Buy stamps", "due": "2026-06-11T10:00"], as: alice)
        let id = try #require(added.content["todo"]?["id"]?.stringValue, "\(added)")
        let afterAdd = try await harness.call("list_todos", ["date": "2026-06-11"], as: alice)
        #expect(ids(afterAdd.content["items"]).contains(id), "\(afterAdd.content)")
        let searched = try await harness.call("search", ["query": "stamps"], as: alice)
        #expect(ids(searched.content["results"]) == [id])

        _ = try await harness.call("complete_todo", ["id": .string(id)], as: alice)
        let afterDone = try await harness.call("list_todos", ["date": "2026-06-11"], as: alice)
        #expect(!ids(afterDone.content["items"]).contains(id), "\(afterDone.content)")
        let done = try await harness.call("list_todos", ["date": "2026-06-11", "status": "done"], as: alice)
        #expect(ids(done.content["items"]) == [id], "\(done.content)")

        _ = try await harness.call("delete_todo", ["id": "old"], as: alice)
        let afterDelete = try await harness.call("list_todos", ["status": "all"], as: alice)
        #expect(!ids(afterDelete.content["items"]).contains("old"), "\(afterDelete.content)")
        let gone = try await harness.call("search", ["query": "errand"], as: alice)
        #expect(ids(gone.content["results"]) == [])

        // The query alone would still have said otherwise: the lag is real in this test.
        if history > 0 {
            let direct = try harness.emulator.query(
                alice.appleID, recordType: "Todo", where: "status", equals: "pending")
            #expect(!direct.contains(id) && direct.contains("old"))
        }
    }

    /// A write through one connection (another grant, as another instance would hold: RelayTodo keeps nothing
    /// between calls) shows at once in a list through another, while the index lags.
    @Test func aWriteShowsThroughAnotherConnection() async throws {
        var settings = EmulatorSettings()
        settings.indexLag = .milliseconds(60_000)
        let harness = try ToolHarness(settings: settings)
        let phone = try harness.connect()
        let desktop = try harness.connect()
        try Self.longHistory(harness, phone, deleted: 600, completed: 0)
        let added = try await harness.call("add_todo", ["title": "Renew passport"], as: phone)
        let id = try #require(added.content["todo"]?["id"]?.stringValue, "\(added)")
        let list = try await harness.call("list_todos", [:], as: desktop)
        #expect(ids(list.content["items"]).contains(id), "\(list.content)")
        #expect(list.content["complete"] == true)
    }

    /// A service that ignores `reverse` hands the oldest changes: the relay sees it (a record on a query page is
    /// newer than the feed's page and not on it) and says a change of the last seconds may be missing.
    @Test func aFeedThatIgnoresReverseIsSaid() async throws {
        var settings = EmulatorSettings()
        settings.reverseChanges = "ignored"
        let harness = try ToolHarness(settings: settings)
        let alice = try harness.connect()
        let gone = timestamp("2026-06-01T00:00:00Z")
        try harness.emulator.seed(
            alice.appleID, records: Self.records("gone", 300, title: "x", extra: ["deletedAt": gone]))
        harness.emulator.advanceClock(seconds: 1)
        try harness.emulator.seed(alice.appleID, records: Self.records("live", 5, title: "x", extra: [:]))
        let list = try await harness.call("list_todos", [:], as: alice)
        #expect(ids(list.content["items"]).count == 5)
        #expect(list.content["complete"] == false, "\(list.content)")
        #expect(list.content["warning"]?.stringValue?.contains("last few seconds") == true)
        settings.reverseChanges = "honoured"
        harness.emulator.updateSettings { $0.reverseChanges = "honoured" }
        let honoured = try await harness.call("list_todos", [:], as: alice)
        #expect(honoured.content["complete"] == true, "\(honoured.content)")
    }
}
