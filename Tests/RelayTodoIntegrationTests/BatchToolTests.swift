import Foundation
import RelayJSON
import Testing

/// Issue 44, batches: up to 25 items in two CloudKit calls (one lookup, one `records/modify`), a result per item
/// in order, one undo for the batch; 26 is refused before anything is read or written.
@Suite struct BatchToolTests {
    /// The operations the emulator has served, by endpoint.
    static func operations(_ harness: ToolHarness) -> JSONValue {
        harness.emulator.statistics()["operations"] ?? .null
    }

    @Test func twentyFiveAddsAreOneWriteAndOneUndoRemovesThemAll() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(alice, ["timeZone": field("Asia/Tokyo")])
        let items: [JSONValue] = (1...25).map { ["title": .string("Batch item \($0)"), "due": "2026-06-12T08:00"] }
        let before = Self.operations(harness)
        let added = try await harness.call("add_todos", ["items": .array(items)], as: alice)
        #expect(!added.isError, "\(added)")
        let results = try #require(added.content["results"]?.arrayValue)
        #expect(results.count == 25)
        #expect(
            results.allSatisfy {
                $0["ok"] == true && $0["id"]?.stringValue?.isEmpty == false && $0.objectValue?.count == 2
            })
        let after = Self.operations(harness)
        #expect(after["records/modify"]?.intValue == (before["records/modify"]?.intValue ?? 0) + 1, "\(after)")
        #expect(after["records/lookup"]?.intValue == (before["records/lookup"]?.intValue ?? 0) + 1, "\(after)")
        let stored = try harness.stored(alice, "Todo")
        #expect(stored.count == 25)
        for (index, result) in results.enumerated() {
            let fields = stored[result["id"]?.stringValue ?? ""]?["fields"] ?? .null
            #expect(fields["title"] == field(.string("Batch item \(index + 1)")))
            #expect(fields["source"] == field("mcp"))
            #expect(fields["dueAt"] == timestamp("2026-06-12T08:00:00+09:00"))
        }

        harness.clock.set("2026-06-10T12:10:00Z")
        let undone = try await harness.call("undo", ["undo": added.content["undo"] ?? .null], as: alice)
        #expect(undone.content["results"]?.arrayValue?.count == 25 && !undone.isError, "\(undone)")
        #expect(undone.content["results"]?.arrayValue?.allSatisfy { $0["ok"] == true } == true)
        let removed = try harness.stored(alice, "Todo")
        #expect(removed.count == 25, "soft deletes: the records stay until the app purges them")
        #expect(removed.values.allSatisfy { $0["fields"]?["deletedAt"] == timestamp("2026-06-10T12:10:00Z") })
        let listed = try await harness.call("list_todos", ["status": "all"], as: alice)
        #expect(listed.content["items"] == [], "\(listed)")
    }

    @Test(arguments: ["add_todos", "complete_todos", "snooze_todos", "delete_todos"])
    func twentySixAreRefusedBeforeAnythingIsWritten(tool: String) async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        for id in 0..<26 { try harness.seedAppTodo(alice, "t\(id)") }
        let stored = try harness.stored(alice, "Todo")
        let calls = harness.emulator.statistics()["databaseRequests"]
        let arguments: JSONValue =
            switch tool {
            case "add_todos": ["items": .array((0..<26).map { ["title": .string("Item \($0)")] })]
            case "snooze_todos": ["ids": .array((0..<26).map { .string("t\($0)") }), "until": "2026-06-13T10:00"]
            default: ["ids": .array((0..<26).map { .string("t\($0)") })]
            }
        let reply = try await harness.call(tool, arguments, as: alice)
        #expect(reply.isError && reply.errorCode == "INVALID_ARGUMENT", "\(reply)")
        // The endpoint checks the input schema's maxItems first; the tool's own check (BatchParseTests) says the
        // same for a client that gets past it.
        #expect(reply.text.contains("at most 25"), "\(reply.text)")
        #expect(harness.emulator.statistics()["databaseRequests"] == calls)
        #expect(try harness.stored(alice, "Todo") == stored)
    }

    /// An item the schema cannot judge (blank after trimming, a hidden control character, a repeat that ends
    /// before it starts) is refused on its own; the others are written, and each result names its item, in order.
    /// A batch the input schema refuses (an empty title) is refused whole, before anything is written.
    @Test func addTodosAnswersEachItem() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        let reply = try await harness.call(
            "add_todos",
            [
                "items": [
                    ["title": "One"], ["title": "   "], ["title": "Bell\u{7}"],
                    [
                        "title": "Ends early", "due": "2026-06-20T09:00",
                        "repeat": ["kind": "daily", "end": ["kind": "until", "until": "2026-06-15"]],
                    ],
                    ["title": "Two"],
                ]
            ], as: alice)
        let results = try #require(reply.content["results"]?.arrayValue, "\(reply)")
        #expect(results.map { $0["ok"] } == [true, false, false, false, true])
        #expect(results[1]["id"] == nil && results[1]["error"]?["code"] == "INVALID_ARGUMENT")
        #expect(results[1]["error"]?["message"]?.stringValue?.hasPrefix("items[1]") == true, "\(results[1])")
        #expect(results[2]["error"]?["message"]?.stringValue?.hasPrefix("items[2]") == true, "\(results[2])")
        #expect(results[3]["error"]?["message"]?.stringValue?.contains("end.until") == true, "\(results[3])")
        #expect(try harness.stored(alice, "Todo").count == 2)

        let refused = try await harness.call("add_todos", ["items": [["title": "Fine"], ["title": ""]]], as: alice)
        #expect(refused.isError && refused.errorCode == "INVALID_ARGUMENT", "\(refused)")
        #expect(try harness.stored(alice, "Todo").count == 2)
    }

    /// The entitlement hint decides for the whole batch, as the app decides when adding: nothing is written.
    @Test func aBatchTheAppWouldNotAllowAddsNothing() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(alice, ["canAddTodos": field(0, "INT64")])
        let reply = try await harness.call("add_todos", ["items": [["title": "One"], ["title": "Two"]]], as: alice)
        #expect(reply.errorCode == "PAYMENT_REQUIRED", "\(reply)")
        #expect(try harness.stored(alice, "Todo").isEmpty)
    }

    /// complete_todos: a one-off, a repeating to-do's day, one already done, a missing id and a repeated id, in
    /// one lookup and one write; undo reverts exactly the two that were written.
    @Test func completeTodosAnswersEachIdAndOneUndoRevertsTheWrittenOnes() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(alice, "one")
        try harness.seedAppTodo(alice, "rep", due: "2026-06-01T09:00:00Z", extra: ["repeatRule": dailyRule])
        try harness.seedAppTodo(alice, "done", extra: ["status": field("done")])
        let todos = try harness.stored(alice, "Todo")
        let before = Self.operations(harness)
        let reply = try await harness.call(
            "complete_todos", ["ids": ["one", "rep", "done", "missing", "one"]], as: alice)
        let results = try #require(reply.content["results"]?.arrayValue, "\(reply)")
        #expect(results.map { $0["id"] } == ["one", "rep", "done", "missing", "one"])
        #expect(results.map { $0["ok"] } == [true, true, true, false, false])
        #expect(results[3]["error"]?["code"] == "NOT_FOUND")
        #expect(results[4]["error"]?["code"] == "INVALID_ARGUMENT")
        let after = Self.operations(harness)
        #expect(after["records/modify"]?.intValue == (before["records/modify"]?.intValue ?? 0) + 1, "\(after)")
        #expect(try harness.fields(alice, "one")["status"] == field("done"))
        #expect(try harness.fields(alice, "rep|2026-06-10", type: "Occurrence")["state"] == field("done"))

        let undone = try await harness.call("undo", ["undo": reply.content["undo"] ?? .null], as: alice)
        #expect(undone.content["results"] == [["id": "one", "ok": true], ["id": "rep", "ok": true]], "\(undone)")
        #expect(try harness.stored(alice, "Todo").mapValues { $0["fields"] } == todos.mapValues { $0["fields"] })
        #expect(try harness.stored(alice, "Occurrence").isEmpty)
    }

    /// snooze_todos and delete_todos; a batch undo after one to-do changed in the app puts back the others and
    /// says which one it left, and why.
    @Test func aBatchUndoRefusesOnlyTheToDosChangedSince() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        for id in ["a", "b", "c"] { try harness.seedAppTodo(alice, id) }
        let original = try harness.stored(alice, "Todo").mapValues { $0["fields"] }
        let snoozed = try await harness.call(
            "snooze_todos", ["ids": ["a", "b"], "until": "2026-06-12T18:00"], as: alice)
        #expect(snoozed.content["results"] == [["id": "a", "ok": true], ["id": "b", "ok": true]], "\(snoozed)")
        #expect(try harness.fields(alice, "a")["snoozedUntil"] == timestamp("2026-06-12T18:00:00Z"))
        let snoozeUndo = snoozed.content["undo"] ?? .null
        let undoneSnooze = try await harness.call("undo", ["undo": snoozeUndo], as: alice)
        #expect(undoneSnooze.content["results"]?.arrayValue?.count == 2, "\(undoneSnooze)")
        #expect(try harness.stored(alice, "Todo").mapValues { $0["fields"] } == original)

        let deleted = try await harness.call("delete_todos", ["ids": ["a", "b", "c"]], as: alice)
        #expect(deleted.content["results"]?.arrayValue?.allSatisfy { $0["ok"] == true } == true, "\(deleted)")
        // The app restores b with a new title before the undo.
        var fields = try harness.fields(alice, "b").objectValue ?? [:]
        fields["title"] = field("Renamed in the app")
        fields["deletedAt"] = nil
        try harness.seedTodo(alice, "b", fields)
        let changed = try harness.stored(alice, "Todo")["b"]
        let undone = try await harness.call("undo", ["undo": deleted.content["undo"] ?? .null], as: alice)
        #expect(!undone.isError, "\(undone)")
        let results = try #require(undone.content["results"]?.arrayValue)
        #expect(results.map { $0["ok"] } == [true, false, true])
        #expect(results[1]["id"] == "b" && results[1]["error"]?["code"] == "CONFLICT")
        let message = results[1]["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("title") && message.contains("it was restored"), "\(message)")
        #expect(undone.content["message"]?.stringValue?.contains("Undid 2 of 3") == true, "\(undone)")
        #expect(try harness.stored(alice, "Todo")["b"] == changed)
        #expect(try harness.fields(alice, "a") == original["a"])
        #expect(try harness.fields(alice, "c") == original["c"])
    }
}
