import Foundation
import RelayEmulator
import RelayJSON
import Testing

@Suite struct UpdateTodoToolTests {
    static let id = "5b0f1c2e-0000-4000-8000-000000000001"

    /// The container a newer app deployed: the relay's schema plus a field this relay does not know.
    static let newerApp: ContainerSchema = {
        var schema = ContainerSchema.relay
        schema.recordTypes["Todo"]?.fields["futureField"] = ContainerSchema.Field("futureField", FieldType(.int64))
        return schema
    }()

    @Test func changesOnlyThePassedFieldsAndKeepsWhatTheAppWrote() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z", schema: Self.newerApp)
        let alice = try harness.connect()
        try harness.seedAppTodo(
            alice, Self.id,
            extra: [
                "notes": field("keep these"), "futureField": field(7, "INT64"), "status": field("archived"),
            ])
        let before = try harness.changeTag(alice, Self.id)
        let reply = try await harness.call("update_todo", ["id": .string(Self.id), "title": "Renamed"], as: alice)
        #expect(!reply.isError, "\(reply)")
        #expect(reply.content["changed"] == ["title", "changedAt"])
        let fields = try harness.fields(alice, Self.id)
        #expect(fields["title"] == field("Renamed"))
        #expect(fields["changedAt"] == timestamp("2026-06-10T12:00:00Z"))
        #expect(fields["notes"] == field("keep these"))
        #expect(fields["futureField"] == field(7, "INT64"))
        #expect(fields["status"] == field("archived"))
        #expect(fields["source"] == field("app"))
        #expect(fields["sound"] == field("chime"))
        #expect(try harness.changeTag(alice, Self.id) != before)
    }

    @Test func nullClearsNotesAndRepeat() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(alice, Self.id, extra: ["notes": field("old"), "repeatRule": dailyRule])
        let reply = try await harness.call(
            "update_todo", ["id": .string(Self.id), "notes": nil, "repeat": nil], as: alice)
        #expect(!reply.isError, "\(reply)")
        #expect(reply.content["changed"] == ["notes", "repeatRule", "changedAt"])
        #expect(reply.content["todo"]?["notes"] == .null)
        #expect(reply.content["todo"]?["repeat"] == .null)
        // Cleared with `replace` (the emulator refuses {"value": null}, as Apple documents no such thing).
        let fields = try harness.fields(alice, Self.id)
        #expect(fields["notes"] == nil)
        #expect(fields["repeatRule"] == nil)
        #expect(fields["title"] == field("From the app"))
        // {kind: "none"} also makes it one-off; an empty notes string also clears.
        try harness.seedAppTodo(alice, "r2", extra: ["notes": field("old"), "repeatRule": dailyRule])
        _ = try await harness.call("update_todo", ["id": "r2", "notes": "", "repeat": ["kind": "none"]], as: alice)
        #expect(try harness.fields(alice, "r2")["repeatRule"] == nil)
        #expect(try harness.fields(alice, "r2")["notes"] == nil)
    }

    @Test func aNewDueCancelsTheSnoozeAndTakesTheAccountZone() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(
            alice,
            [
                "timeZone": field("America/New_York"), "quietHoursStart": field("23:00"),
                "quietHoursEnd": field("06:30"),
            ])
        try harness.seedAppTodo(
            alice, Self.id, zone: "Europe/London", extra: ["snoozedUntil": timestamp("2026-06-12T10:00:00Z")])
        let reply = try await harness.call(
            "update_todo", ["id": .string(Self.id), "due": "2026-06-13T05:00"], as: alice)
        #expect(reply.content["todo"]?["due"] == "2026-06-13T06:30:00-04:00", "\(reply)")
        #expect(reply.content["quietHoursAdjusted"]?["requested"] == "2026-06-13T05:00:00-04:00")
        let fields = try harness.fields(alice, Self.id)
        #expect(fields["dueAt"] == timestamp("2026-06-13T06:30:00-04:00"))
        #expect(fields["timeZone"] == field("America/New_York"))
        #expect(fields["snoozedUntil"] == nil)
    }

    @Test func statusOnAOneOff() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(alice, Self.id)
        _ = try await harness.call("update_todo", ["id": .string(Self.id), "status": "done"], as: alice)
        #expect(try harness.fields(alice, Self.id)["status"] == field("done"))
        #expect(try harness.fields(alice, Self.id)["completedAt"] == timestamp("2026-06-10T12:00:00Z"))
        _ = try await harness.call("update_todo", ["id": .string(Self.id), "status": "skipped"], as: alice)
        #expect(try harness.fields(alice, Self.id)["status"] == field("skipped"))
        #expect(try harness.fields(alice, Self.id)["completedAt"] == nil)
        // The same values again: nothing to write, nothing written.
        let tag = try harness.changeTag(alice, Self.id)
        let same = try await harness.call("update_todo", ["id": .string(Self.id), "status": "skipped"], as: alice)
        #expect(same.content["changed"] == [])
        #expect(try harness.changeTag(alice, Self.id) == tag)
    }

    /// (arguments, code, field); the record stays as it was.
    @Test(
        arguments: [
            (#"{"id":"r","status":"done"}"#, "INVALID_ARGUMENT", "status"),
            (#"{"id":"r"}"#, "INVALID_ARGUMENT", nil),
            (#"{"id":"r","due":"next week"}"#, "INVALID_ARGUMENT", "due"),
            (#"{"id":"r","title":""}"#, "INVALID_ARGUMENT", "title"),
            (#"{"id":"r","sound":"gong"}"#, "INVALID_ARGUMENT", "sound"),
            (#"{"id":"r","repeat":{"kind":"weekly","weekdays":[0]}}"#, "INVALID_ARGUMENT", "repeat.weekdays[0]"),
            (#"{"title":"x"}"#, "INVALID_ARGUMENT", "id"),
            (#"{"id":"missing","title":"x"}"#, "NOT_FOUND", "id"),
            (#"{"id":"gone","title":"x"}"#, "NOT_FOUND", "id"),
            (#"{"id":"account","title":"x"}"#, "NOT_FOUND", "id"),
            (#"{"id":"r|2026-06-10","title":"x"}"#, "NOT_FOUND", "id"),
        ] as [(String, String, String?)])
    func refusals(arguments: String, code: String, named: String?) async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(alice, ["timeZone": field("UTC")])
        try harness.seedAppTodo(alice, "r", extra: ["repeatRule": dailyRule])
        try harness.seedAppTodo(alice, "gone", extra: ["deletedAt": timestamp("2026-06-01T00:00:00Z")])
        try harness.seedOccurrence(alice, "r", "2026-06-10", state: "done")
        let before = try harness.stored(alice, "Todo")
        let reply = try await harness.call("update_todo", try JSONValue(parsing: Array(arguments.utf8)), as: alice)
        #expect(reply.isError && reply.errorCode == code, "\(reply)")
        #expect(reply.errorField == named, "\(reply)")
        #expect(try harness.stored(alice, "Todo") == before)
        #expect(try harness.stored(alice, "Account").count == 1)
    }
}
