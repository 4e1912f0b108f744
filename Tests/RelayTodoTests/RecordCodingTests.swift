import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct RecordCodingTests {
    @Test func todoRoundTripsThroughWireFields() throws {
        var todo = repeating("r", rule: RepeatRule(kind: .weekly, interval: 2, weekdays: [.monday]))
        todo.notes = "n"
        todo.snoozedUntil = instant("2026-06-10T10:00:00Z")
        todo.source = .mcp
        let fields = todo.recordFields()
        #expect(fields["dueAt"] == ["value": 1_781_076_600_000, "type": "TIMESTAMP"])
        #expect(
            fields["repeatRule"]?["value"] == #"{"kind":"weekly","interval":2,"weekdays":[2],"end":{"kind":"never"}}"#)
        #expect(fields["completedAt"] == ["value": nil, "type": "TIMESTAMP"])
        #expect(Todo(recordName: "r", fields: fields) == todo)
        let created = todo.recordFields(nonNil: true)
        #expect(created["completedAt"] == nil && created["deletedAt"] == nil && created["title"] != nil)
        #expect(todo.recordFields([.title, .changedAt]).keys == ["title", "changedAt"])
    }

    @Test func todoFromTheAppIsReadLeniently() {
        let fields = json(
            #"{"title":{"value":"Walk","type":"STRING"},"dueAt":{"value":1781076600000.0,"type":"TIMESTAMP"},"status":{"value":"archived","type":"STRING"},"sound":{"value":"gong","type":"STRING"},"repeatRule":{"value":"{\"kind\":\"daily\",\"interval\":0}","type":"STRING"}}"#
        ).objectValue!
        let todo = Todo(recordName: "X", fields: fields)
        #expect(todo.title == "Walk")
        #expect(todo.dueAt == instant("2026-06-10T07:30:00Z"))
        #expect(todo.status == .pending)
        #expect(todo.sound == nil)
        #expect(todo.source == .app)
        #expect(todo.repeatRule == RepeatRule(kind: .daily))
    }

    @Test func occurrenceRoundTrip() {
        let occurrence = Occurrence(
            todoId: "r", date: day("2026-06-10"), state: .snoozed, snoozedUntil: instant("2026-06-10T10:00:00Z"),
            changedAt: instant("2026-06-10T09:00:00Z"))
        #expect(Occurrence(recordName: occurrence.recordName, fields: occurrence.recordFields) == occurrence)
        #expect(Occurrence(recordName: "r|2026-06-10", fields: ["state": ["value": "done"]])?.date == day("2026-06-10"))
        #expect(Occurrence(recordName: "r|2026-06-10", fields: ["state": ["value": "maybe"]]) == nil)
    }

    @Test func accountFromFields() {
        let fields = json(
            #"{"timeZone":{"value":"Asia/Tokyo","type":"STRING"},"defaultTime":{"value":"07:00","type":"STRING"},"quietHoursStart":{"value":"22:00","type":"STRING"},"quietHoursEnd":{"value":"06:00","type":"STRING"},"trialStartedAt":{"value":1781076600000,"type":"TIMESTAMP"},"canAddTodos":{"value":"1","type":"INT64"}}"#
        ).objectValue!
        let account = Account(fields: fields)
        #expect(account.rules.zoneName == "Asia/Tokyo")
        #expect(account.rules.defaultTime == clock("07:00"))
        #expect(account.quietHours == QuietHours(start: clock("22:00"), end: clock("06:00")))
        #expect(account.trialStartedAt == instant("2026-06-10T07:30:00Z"))
        #expect(account.canAddTodosHint == true)
        #expect(Account(fields: JSONObject()) == .defaults)
    }
}
