import Foundation
import RelayJSON
import Testing

@Suite struct ListDeleteToolTests {
    /// New York account; one-offs around the day boundary, a done one, a deleted one, and a repeating to-do
    /// with Occurrences inside and outside the range.
    func seeded() throws -> (ToolHarness, ToolHarness.User) {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(alice, ["timeZone": field("America/New_York")])
        // 23:30 in New York on the 10th is already the 11th in UTC: it belongs to the 10th.
        try harness.seedAppTodo(alice, "late", due: "2026-06-10T23:30:00-04:00", zone: "America/New_York")
        try harness.seedAppTodo(alice, "early", due: "2026-06-10T07:00:00-04:00", zone: "America/New_York")
        try harness.seedAppTodo(alice, "next", due: "2026-06-11T00:30:00-04:00", zone: "America/New_York")
        try harness.seedAppTodo(
            alice, "done", due: "2026-06-10T08:00:00-04:00",
            extra: ["status": field("done"), "completedAt": timestamp("2026-06-10T12:00:00Z")])
        try harness.seedAppTodo(
            alice, "deleted", due: "2026-06-10T09:00:00-04:00", extra: ["deletedAt": timestamp("2026-06-09T00:00:00Z")])
        try harness.seedAppTodo(
            alice, "daily", due: "2026-06-01T06:45:00-04:00", zone: "America/New_York", extra: ["repeatRule": dailyRule]
        )
        try harness.seedAppTodo(
            alice, "gone-daily", due: "2026-06-01T06:45:00-04:00", zone: "America/New_York",
            extra: ["repeatRule": dailyRule, "deletedAt": timestamp("2026-06-09T00:00:00Z")])
        try harness.seedOccurrence(alice, "daily", "2026-06-09", state: "done")
        try harness.seedOccurrence(alice, "daily", "2026-06-10", state: "snoozed", snoozedUntil: "2026-06-10T11:00:00Z")
        try harness.seedOccurrence(alice, "daily", "2026-06-12", state: "skipped")
        return (harness, alice)
    }

    func ids(_ list: JSONValue?) -> [String] { list?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }

    @Test func oneDayInTheAccountZone() async throws {
        let (harness, alice) = try seeded()
        let reply = try await harness.call("list_todos", ["date": "2026-06-10"], as: alice)
        #expect(!reply.isError, "\(reply)")
        #expect(ids(reply.content["items"]) == ["early", "late"])
        #expect(reply.content["timeZone"] == "America/New_York")
        #expect(reply.content["items"]?.arrayValue?.first?["due"] == "2026-06-10T07:00:00-04:00")
        let repeating = reply.content["repeating"]?.arrayValue ?? []
        #expect(ids(.array(repeating)) == ["daily"])
        #expect(repeating.first?["repeatDescription"] == "every day at 06:45")
        let occurrences = repeating.first?["occurrences"]?.arrayValue ?? []
        #expect(occurrences.map { $0["date"] } == ["2026-06-10"])
        #expect(occurrences.first?["state"] == "snoozed")
        #expect(occurrences.first?["snoozedUntil"] == "2026-06-10T07:00:00-04:00")
        #expect(reply.content["nextCursor"] == nil)
    }

    @Test func statusRangesAndTemplates() async throws {
        let (harness, alice) = try seeded()
        let done = try await harness.call("list_todos", ["status": "done", "includeRepeating": false], as: alice)
        #expect(ids(done.content["items"]) == ["done"])
        #expect(done.content["repeating"] == [])
        let all = try await harness.call(
            "list_todos", ["status": "all", "from": "2026-06-10", "to": "2026-06-11"], as: alice)
        #expect(ids(all.content["items"]) == ["early", "done", "late", "next"])
        #expect(all.content["repeating"]?.arrayValue?.first?["occurrences"]?.arrayValue?.count == 1)
        let everything = try await harness.call("list_todos", [:], as: alice)
        #expect(ids(everything.content["items"]) == ["early", "late", "next"])
        let occurrences = everything.content["repeating"]?.arrayValue?.first?["occurrences"]?.arrayValue ?? []
        #expect(occurrences.map { $0["date"] } == ["2026-06-09", "2026-06-10", "2026-06-12"])
        for list in [done, all, everything] {
            #expect(!list.text.contains("deleted") && !list.text.contains("gone-daily"))
        }
    }

    @Test func pagesOf200() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        let records: [JSONValue] = (0..<205).map { index in
            [
                "recordName": .string(String(format: "t%03d", index)), "recordType": "Todo",
                "fields": [
                    "title": field("n"), "status": field("pending"),
                    "dueAt": field(.int(1_781_000_000_000 + index * 60_000), "TIMESTAMP"),
                ],
            ]
        }
        try harness.emulator.seed(alice.appleID, records: Array(records[..<150]))
        try harness.emulator.seed(alice.appleID, records: Array(records[150...]))
        let first = try await harness.call("list_todos", [:], as: alice)
        #expect(first.content["items"]?.arrayValue?.count == 200, "\(first.status)")
        let cursor = try #require(first.content["nextCursor"])
        let second = try await harness.call("list_todos", ["cursor": cursor], as: alice)
        #expect(ids(second.content["items"]) == ["t200", "t201", "t202", "t203", "t204"])
        #expect(second.content["nextCursor"] == nil)
    }

    /// (arguments, field)
    @Test(arguments: [
        (#"{"date":"2026-06-10","from":"2026-06-01"}"#, "date"),
        (#"{"from":"2026-06-10","to":"2026-06-01"}"#, "to"),
        (#"{"date":"2026-06-31"}"#, "date"),
        (#"{"status":"open"}"#, "status"),
        (#"{"includeRepeating":"yes"}"#, "includeRepeating"),
        (#"{"cursor":"not-a-cursor"}"#, "cursor"),
    ])
    func refusals(arguments: String, named: String) async throws {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        let reply = try await harness.call("list_todos", try JSONValue(parsing: Array(arguments.utf8)), as: alice)
        #expect(reply.isError && reply.errorCode == "INVALID_ARGUMENT", "\(reply)")
        #expect(reply.errorField == named, "\(reply)")
    }

    @Test func deleteIsSoftAndThenTheToDoIsGone() async throws {
        let (harness, alice) = try seeded()
        let reply = try await harness.call("delete_todo", ["id": "daily"], as: alice)
        #expect(reply.content["deleted"] == true && reply.content["id"] == "daily", "\(reply)")
        #expect(reply.content["deletedAt"] == "2026-06-10T08:00:00-04:00")
        // Still stored (the app purges later), with deletedAt and changedAt; nothing else changed.
        let fields = try harness.fields(alice, "daily")
        #expect(fields["deletedAt"] == timestamp("2026-06-10T12:00:00Z"))
        #expect(fields["changedAt"] == timestamp("2026-06-10T12:00:00Z"))
        #expect(fields["repeatRule"] == dailyRule)
        #expect(try harness.stored(alice, "Occurrence").count == 3)
        let list = try await harness.call("list_todos", ["status": "all"], as: alice)
        #expect(list.content["repeating"] == [])
        for (tool, arguments) in [
            ("delete_todo", ["id": "daily"]), ("update_todo", ["id": "daily", "title": "x"]),
            ("complete_todo", ["id": "daily"]), ("snooze_todo", ["id": "daily", "until": "2026-06-11"]),
            ("delete_todo", ["id": "never-was"]),
        ] as [(String, JSONValue)] {
            let refused = try await harness.call(tool, arguments, as: alice)
            #expect(refused.errorCode == "NOT_FOUND" && refused.errorField == "id", "\(tool): \(refused)")
        }
        #expect(try harness.fields(alice, "daily") == fields)
    }
}
