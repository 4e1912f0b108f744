import Foundation
import RelayCloudKit
import RelayJSON
import Testing

@testable import RelayTodo

/// The one path between CloudKit records and domain values: RelayCloudKit's typed codecs, then these mappings.
@Suite struct RecordMappingTests {
    /// A record as the wire carries it, decoded by RelayCloudKit.
    func record(_ text: String) throws -> Record { try Record(json: json(text)) }

    @Test func todoRoundTripsThroughTheWire() throws {
        var todo = repeating("r", rule: RepeatRule(kind: .weekly, interval: 2, weekdays: [.monday]))
        todo.notes = "n"
        todo.snoozedUntil = instant("2026-06-10T10:00:00Z")
        todo.source = .mcp
        let written = TodoRecord(creating: todo).record()
        #expect(written.recordType == "Todo")
        #expect(written.recordChangeTag == nil)
        #expect(written.fields["dueAt"] == .timestamp(1_781_076_600_000))
        #expect(
            written.fields["repeatRule"]
                == .string(#"{"kind":"weekly","interval":2,"weekdays":[2],"end":{"kind":"never"}}"#))
        #expect(written.fields["completedAt"] == nil && written.fields["deletedAt"] == nil)
        let read = try TodoRecord(record: try Record(json: JSONValue(parsing: written.json.bytes)))
        #expect(Todo(record: read) == todo)
    }

    @Test func todoFromTheAppIsReadLenientlyAndWrittenBackUntouched() throws {
        let stored = try record(
            #"""
            {"recordName":"X","recordType":"Todo","recordChangeTag":"t1","fields":{
             "title":{"value":"Walk","type":"STRING"},"dueAt":{"value":1781076600000.0,"type":"TIMESTAMP"},
             "status":{"value":"archived","type":"STRING"},"sound":{"value":"gong","type":"STRING"},
             "repeatRule":{"value":"{\"kind\":\"daily\",\"interval\":0}","type":"STRING"},
             "notes":{"value":"keep me","type":"STRING"},"futureField":{"value":7,"type":"INT64"}}}
            """#)
        let raw = try TodoRecord(record: stored)
        let todo = Todo(record: raw)
        #expect(todo.title == "Walk")
        #expect(todo.dueAt == instant("2026-06-10T07:30:00Z"))
        #expect(todo.status == .pending)
        #expect(todo.sound == nil)
        #expect(todo.source == .app)
        #expect(todo.repeatRule == RepeatRule(kind: .daily))

        // A change to the title writes the title; the values read leniently and the unknown field stay as stored.
        var renamed = todo
        renamed.title = "Run"
        renamed.notes = nil
        let change = TodoChange(from: todo, to: renamed, now: instant("2026-06-11T00:00:00Z"))
        #expect(change.fields == [.title, .notes, .changedAt])
        let written = raw.applying(change.fields, from: change.todo).record()
        #expect(written.recordChangeTag == "t1")
        #expect(written.fields["title"] == .string("Run"))
        #expect(written.fields["status"] == .string("archived"))
        #expect(written.fields["sound"] == .string("gong"))
        #expect(written.fields["repeatRule"] == .string(#"{"kind":"daily","interval":0}"#))
        #expect(written.fields["futureField"] == .int64(7))
        // Cleared by leaving it out: the write is a `replace`, which nulls what it does not carry.
        #expect(written.fields["notes"] == nil)
        #expect(written.fields["changedAt"] == .timestamp(1_781_136_000_000))
    }

    @Test func occurrenceRoundTripAndFallbacks() throws {
        let occurrence = Occurrence(
            todoId: "r", date: day("2026-06-10"), state: .snoozed, snoozedUntil: instant("2026-06-10T10:00:00Z"),
            changedAt: instant("2026-06-10T09:00:00Z"))
        let written = OccurrenceRecord(occurrence, base: nil).record()
        #expect(written.recordName == "r|2026-06-10")
        #expect(Occurrence(record: try OccurrenceRecord(record: written)) == occurrence)

        let bare = try OccurrenceRecord(
            record: try record(
                #"{"recordName":"r|2026-06-10","recordType":"Occurrence","fields":{"state":{"value":"done"}}}"#))
        #expect(Occurrence(record: bare)?.date == day("2026-06-10"))
        #expect(Occurrence(record: bare)?.todoId == "r")
        var unknown = bare
        unknown.state = OccurrenceRecord.State(rawValue: "maybe")
        #expect(Occurrence(record: unknown) == nil)

        // Done over a snoozed record: snoozedUntil goes, the change tag stays for the replace.
        var stored = OccurrenceRecord(occurrence, base: nil)
        stored.changeTag = "c1"
        let done = Occurrence(
            todoId: "r", date: day("2026-06-10"), state: .done, changedAt: instant("2026-06-10T11:00:00Z"))
        let replaced = OccurrenceRecord(done, base: stored)
        #expect(replaced.changeTag == "c1")
        #expect(replaced.snoozedUntil == nil)
        #expect(replaced.record().fields["state"] == .string("done"))
    }

    @Test func accountFromTheRecord() throws {
        let stored = try record(
            #"""
            {"recordName":"account","recordType":"Account","fields":{
             "timeZone":{"value":"Asia/Tokyo","type":"STRING"},"defaultTime":{"value":"07:00","type":"STRING"},
             "quietHoursStart":{"value":"22:00","type":"STRING"},"quietHoursEnd":{"value":"06:00","type":"STRING"},
             "trialStartedAt":{"value":1781076600000,"type":"TIMESTAMP"},"canAddTodos":{"value":"1","type":"INT64"}}}
            """#)
        let account = Account(record: try AccountRecord(record: stored))
        #expect(account.rules.zoneName == "Asia/Tokyo")
        #expect(account.rules.defaultTime == clock("07:00"))
        #expect(account.quietHours == QuietHours(start: clock("22:00"), end: clock("06:00")))
        #expect(account.trialStartedAt == instant("2026-06-10T07:30:00Z"))
        #expect(account.canAddTodosHint == true)
        #expect(Account(record: AccountRecord()) == .defaults)
        let malformed = AccountRecord(timeZone: "Mars/Olympus", defaultTime: "25:00", quietHoursStart: "22:00")
        let fallback = Account(record: malformed)
        #expect(fallback.rules == Account.defaults.rules && fallback.quietHours == nil)
        #expect(fallback.warnings.count == 3, "\(fallback.warnings)")
    }
}
