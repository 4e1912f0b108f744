import Foundation
import RelayEmulator
import RelayJSON
import Testing

/// Issue 42: Apple documents neither where a record without the sort field goes in a sorted `records/query` nor
/// that it is returned at all. The emulator plays all three (`missingSortValues` `first`, `last`, `omitted`);
/// in each, every live to-do (they lack `deletedAt`, the sort field) is listed and found, an account with none
/// lists none, and a history too long to read within the budget says so.
@Suite struct MissingSortFieldToolTests {
    func ids(_ list: JSONValue?) -> [String] { list?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }
    func calls(_ harness: ToolHarness) -> Int { harness.emulator.statistics()["databaseRequests"]?.intValue ?? 0 }
    static let live = ["live0000", "live0001", "live0002", "live0003", "live0004"]

    @Test(arguments: ["first", "last", "omitted"])
    func everyLiveOneIsListedAndFound(missing: String) async throws {
        var settings = EmulatorSettings()
        settings.queryPageSize = 100
        settings.missingSortValues = missing
        let harness = try ToolHarness(settings: settings)
        let alice = try harness.connect()
        try LongHistoryToolTests.longHistory(harness, alice, deleted: 600, completed: 300)
        let list = try await harness.call("list_todos", [:], as: alice)
        #expect(!list.isError, "\(list)")
        #expect(ids(list.content["items"]) == Self.live, "\(list.content)")
        #expect(list.content["complete"] == true && list.content["warning"] == nil, "\(list.content)")
        let all = try await harness.call("list_todos", ["status": "all"], as: alice)
        #expect(ids(all.content["items"]).filter { $0.hasPrefix("live") } == Self.live)
        #expect(all.content["complete"] == true, "\(all.content)")
        let found = try await harness.call("search", ["query": "water plants"], as: alice)
        #expect(Array(ids(found.content["results"]).prefix(5)) == Self.live, "\(found.content)")
        #expect(!ids(found.content["results"]).contains { $0.hasPrefix("gone") })

        // A second person with no live to-do at all, only soft-deleted ones: none, and complete.
        let bob = try harness.connect("bob@example.com")
        let gone = timestamp("2026-06-01T00:00:00Z")
        try harness.emulator.seed(
            bob.appleID,
            records: LongHistoryToolTests.records("gone", 400, title: "Water plants", extra: ["deletedAt": gone]))
        let before = calls(harness)
        let none = try await harness.call("list_todos", [:], as: bob)
        #expect(ids(none.content["items"]) == [] && none.content["complete"] == true, "\(none.content)")
        // Once CloudKit was seen to put them at one end (alice's list), one query call settles it; when it
        // leaves them out, the query without a sort reads all 400.
        let used = calls(harness) - before
        #expect(missing == "omitted" ? used == 3 + 4 + 1 : used == 3, "\(used) calls")
    }

    /// Left out of sorted queries and too many to read within the budget: the answer says so, never a silent cut.
    @Test func omittedAndBeyondTheBudgetIsSaid() async throws {
        var settings = EmulatorSettings()
        settings.queryPageSize = 100
        settings.missingSortValues = "omitted"
        let harness = try ToolHarness(settings: settings)
        let alice = try harness.connect()
        try LongHistoryToolTests.longHistory(harness, alice, deleted: 5000, completed: 0)
        let list = try await harness.call("list_todos", [:], as: alice)
        #expect(!list.isError, "\(list)")
        let listed = ids(list.content["items"])
        #expect(list.content["complete"] == false || listed == Self.live, "\(list.content)")
        if list.content["complete"] == false {
            #expect(list.content["warning"]?.stringValue?.contains("may be incomplete") == true)
        }
    }

    /// The emulator's page of a sorted query (the first `offset + limit` kept by bounded insertion, not a full
    /// sort) is the full sort's page: 300 records over pages of 37, values out of order, ties, missing ones.
    @Test func theEmulatorsPagesAreTheFullSortsPages() async throws {
        var settings = EmulatorSettings()
        settings.queryPageSize = 37
        settings.indexLag = .milliseconds(0)
        let harness = try ToolHarness(settings: settings)
        let alice = try harness.connect()
        var records: [JSONValue] = []
        var expected: [(Int?, String)] = []
        for index in 0..<300 {
            let name = String(format: "r%03d", (index * 7) % 300)
            let value: Int? = index % 10 == 0 ? nil : 1_780_000_000_000 + ((index * 7919) % 50) * 1000
            var fields: JSONObject = ["title": field("x"), "status": field("pending")]
            if let value { fields["deletedAt"] = ["value": .int(value), "type": "TIMESTAMP"] }
            records.append(["recordName": .string(name), "recordType": "Todo", "fields": .object(fields)])
            expected.append((value, name))
        }
        try harness.emulator.seed(alice.appleID, records: records)
        let order = expected.sorted { left, right in
            switch (left.0, right.0) {
            case (nil, nil): return left.1 < right.1
            case (nil, _): return true
            case (_, nil): return false
            case (let a?, let b?): return a == b ? left.1 < right.1 : a < b
            }
        }
        let paged = try harness.emulator.query(
            alice.appleID, recordType: "Todo", where: "status", equals: "pending", sortedBy: "deletedAt")
        #expect(paged == order.map(\.1))
    }

    /// The emulator itself: a sorted query leaves out records without the sort field only in `omitted`.
    @Test(arguments: ["first", "last", "omitted"])
    func theEmulatorPlaysEachPlacement(missing: String) async throws {
        var settings = EmulatorSettings()
        settings.missingSortValues = missing
        settings.indexLag = .milliseconds(0)
        let harness = try ToolHarness(settings: settings)
        let alice = try harness.connect()
        try LongHistoryToolTests.longHistory(harness, alice, deleted: 4, completed: 0)
        let sorted = try harness.emulator.query(
            alice.appleID, recordType: "Todo", where: "status", equals: "pending", sortedBy: "deletedAt")
        switch missing {
        case "first": #expect(Array(sorted.prefix(5)) == Self.live && sorted.count == 7, "\(sorted)")
        case "last": #expect(Array(sorted.suffix(5)) == Self.live && sorted.count == 7, "\(sorted)")
        default: #expect(sorted.count == 2 && !sorted.contains { $0.hasPrefix("live") }, "\(sorted)")
        }
    }
}
