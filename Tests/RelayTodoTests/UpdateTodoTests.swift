import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct UpdateTodoTests {
    let now = instant("2026-06-05T12:00:00Z")
    let account = Account(timeZone: "Europe/London", quietHoursStart: "22:00", quietHoursEnd: "07:00")

    func update(_ arguments: String, _ current: Todo?) throws(TodoError) -> UpdateTodo.Updated {
        try UpdateTodo.apply(UpdateTodo.parse(json(arguments)), current: current, account: account, now: now)
    }

    @Test func changesOnlyThePassedFields() throws {
        var todo = oneOff()
        todo.notes = "old notes"
        let updated = try update(#"{"id":"a","title":"New title"}"#, todo)
        #expect(updated.change.fields == [.title, .changedAt])
        #expect(updated.change.todo.title == "New title")
        #expect(updated.change.todo.notes == "old notes")
        #expect(updated.change.todo.changedAt == now)
        #expect(updated.change.todo.dueAt == todo.dueAt)
    }

    @Test func notesNullOrEmptyClears() throws {
        var todo = oneOff()
        todo.notes = "old notes"
        #expect(try update(#"{"id":"a","notes":null}"#, todo).change.todo.notes == nil)
        #expect(try update(#"{"id":"a","notes":""}"#, todo).change.fields == [.notes, .changedAt])
        #expect(try update(#"{"id":"a","notes":"new"}"#, todo).change.todo.notes == "new")
    }

    @Test func repeatIsReplacedWholeOrRemoved() throws {
        let weekly = repeating(rule: RepeatRule(kind: .weekly, interval: 2, weekdays: [.monday], end: .count(4)))
        let replaced = try update(#"{"id":"r","repeat":{"kind":"weekly"}}"#, weekly).change
        #expect(replaced.todo.repeatRule == RepeatRule(kind: .weekly))
        #expect(replaced.fields == [.repeatRule, .changedAt])
        #expect(try update(#"{"id":"r","repeat":null}"#, weekly).change.todo.repeatRule == nil)
        #expect(try update(#"{"id":"r","repeat":{"kind":"none"}}"#, weekly).change.todo.repeatRule == nil)
        #expect(try update(#"{"id":"a","repeat":{"kind":"daily"}}"#, oneOff()).change.todo.isRepeating)
    }

    @Test func statusOnlyForOneOffs() throws {
        expectInvalid("status") { () throws(TodoError) in try update(#"{"id":"r","status":"done"}"#, repeating()) }
        expectInvalid("status") { () throws(TodoError) in
            try update(#"{"id":"a","status":"done","repeat":{"kind":"daily"}}"#, oneOff())
        }
        // Made one-off in the same call: allowed.
        let made = try update(#"{"id":"r","status":"done","repeat":null}"#, repeating()).change.todo
        #expect(made.status == .done && made.completedAt == now && made.repeatRule == nil)
        let done = try update(#"{"id":"a","status":"done"}"#, oneOff()).change
        #expect(done.fields == [.status, .completedAt, .changedAt])
        let reopened = try update(#"{"id":"a","status":"pending"}"#, done.todo).change.todo
        #expect(reopened.status == .pending && reopened.completedAt == nil)
        #expect(try update(#"{"id":"a","status":"skipped"}"#, done.todo).change.todo.completedAt == nil)
    }

    @Test func settingTheSameValuesWritesNothing() throws {
        let todo = oneOff()
        let updated = try update(#"{"id":"a","title":"Title a","sound":"default","status":"pending"}"#, todo)
        #expect(updated.change.isEmpty)
        #expect(updated.change.todo == todo)
        #expect(UpdateTodo.result(updated, account: account)["changed"] == [])
    }

    @Test func newDueIsReadInTheAccountZoneAndCancelsASnooze() throws {
        var todo = oneOff()
        todo.timeZone = "Asia/Tokyo"
        todo.snoozedUntil = instant("2026-06-10T10:00:00Z")
        let london = Account(timeZone: "Europe/London")
        let updated = try UpdateTodo.apply(
            UpdateTodo.parse(json(#"{"id":"a","due":"2026-10-25T01:30"}"#)), current: todo, account: london, now: now)
        // London fall-back overlap: the earlier 01:30 (BST).
        #expect(updated.change.todo.dueAt == instant("2026-10-25T01:30:00+01:00"))
        #expect(updated.change.todo.timeZone == "Europe/London")
        #expect(updated.change.todo.snoozedUntil == nil)
        #expect(updated.change.fields == [.dueAt, .timeZone, .snoozedUntil, .changedAt])
    }

    @Test func quietHoursOnUpdate() throws {
        let oneOffMoved = try update(#"{"id":"a","due":"2026-06-10T23:00"}"#, oneOff())
        #expect(oneOffMoved.change.todo.dueAt == instant("2026-06-11T07:00:00+01:00"))
        #expect(oneOffMoved.quietHoursAdjusted != nil)
        let repeatMoved = try update(#"{"id":"r","due":"2026-06-10T23:00"}"#, repeating())
        #expect(repeatMoved.change.todo.dueAt == instant("2026-06-10T07:00:00+01:00"))
        let result = UpdateTodo.result(repeatMoved, account: account)
        #expect(result["quietHoursAdjusted"]?["actual"] == "2026-06-10T07:00:00+01:00")
        // The to-do was in UTC; a new due re-anchors it to the Account zone.
        #expect(result["changed"] == ["dueAt", "timeZone", "changedAt"])
    }

    @Test func repeatEndBeforeDueIsRejected() {
        expectInvalid("repeat.end.until") { () throws(TodoError) in
            try update(
                #"{"id":"r","repeat":{"kind":"daily","end":{"kind":"until","until":"2026-06-01"}}}"#, repeating())
        }
    }

    @Test func missingOrDeletedIsNotFound() {
        var deleted = oneOff()
        deleted.deletedAt = instant("2026-06-02T00:00:00Z")
        for current in [nil, deleted] {
            let error = expectError { () throws(TodoError) in try update(#"{"id":"a","title":"x"}"#, current) }
            #expect(error?.code == .notFound)
            #expect(error?.field == "id")
        }
    }

    @Test(arguments: [
        (#"{}"#, "id"),
        (#"{"id":""}"#, "id"),
        (#"{"id":7,"title":"x"}"#, "id"),
        (#"{"id":"a"}"#, nil),
        (#"{"id":"a","title":null}"#, nil),
        (#"{"id":"a","title":""}"#, "title"),
        (#"{"id":"a","title":"\#(String(repeating: "t", count: 201))"}"#, "title"),
        (#"{"id":"a","notes":"\#(String(repeating: "n", count: 4001))"}"#, "notes"),
        (#"{"id":"a","due":"next week"}"#, "due"),
        (#"{"id":"a","sound":"gong"}"#, "sound"),
        (#"{"id":"a","status":"snoozed"}"#, "status"),
        (
            #"{"id":"a","repeat":{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":7,"weekday":1}}}"#,
            "repeat.monthly.ordinal"
        ),
        (#"{"id":"a","done":true}"#, "done"),
    ])
    func invalidArguments(arguments: String, field: String?) {
        expectInvalid(field) { () throws(TodoError) in try UpdateTodo.parse(json(arguments)) }
    }
}

/// Issue 42, point 5: an update that changes nothing tells nothing.
@Suite struct NoOpUpdateTests {
    @Test func anUnchangedPastRepeatGivesNoNotice() throws {
        let account = Account(timeZone: "UTC")
        let rule = #"{"kind":"daily","end":{"kind":"count","count":2}}"#
        let todo = Todo(
            id: "a", title: "Old", dueAt: instant("2026-05-01T09:00:00Z"), timeZone: "UTC",
            repeatRule: try RepeatRule.parse(json(rule), field: "repeat"))
        let updated = try UpdateTodo.apply(
            UpdateTodo.parse(json(#"{"id":"a","repeat":\#(rule)}"#)), current: todo, account: account,
            now: instant("2026-06-05T12:00:00Z"))
        #expect(updated.change.isEmpty)
        #expect(updated.notices.isEmpty, "\(updated.notices)")
        // The same repeat with a real change still warns that every occurrence is past.
        let renamed = try UpdateTodo.apply(
            UpdateTodo.parse(json(#"{"id":"a","title":"New","repeat":\#(rule)}"#)), current: todo, account: account,
            now: instant("2026-06-05T12:00:00Z"))
        #expect(renamed.notices.count == 1, "\(renamed.notices)")
    }
}
