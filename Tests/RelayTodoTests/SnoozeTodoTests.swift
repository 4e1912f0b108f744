import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct SnoozeTodoTests {
    let now = instant("2026-03-07T20:00:00-05:00")
    let account = Account(timeZone: "America/New_York", quietHoursStart: "22:00", quietHoursEnd: "07:00")

    func snooze(_ arguments: String, _ current: Todo?) throws(TodoError) -> SnoozeTodo.Snoozed {
        try SnoozeTodo.apply(SnoozeTodo.parse(json(arguments)), current: current, account: account, now: now)
    }

    @Test func oneOffGetsSnoozedUntil() throws {
        let snoozed = try snooze(#"{"id":"a","until":"2026-03-07T21:00"}"#, oneOff())
        #expect(snoozed.until == instant("2026-03-07T21:00:00-05:00"))
        guard case .updated(let change) = snoozed.outcome else {
            Issue.record("expected an update")
            return
        }
        #expect(change.todo.snoozedUntil == snoozed.until)
        #expect(change.todo.status == .pending)
        #expect(change.fields == [.snoozedUntil, .changedAt])
        let result = SnoozeTodo.result(snoozed, account: account)
        #expect(result["snoozedUntil"] == "2026-03-07T21:00:00-05:00")
        #expect(result["occurrence"] == .null)
    }

    @Test func aDoneOneOffIsReopened() throws {
        var done = oneOff()
        done.status = .done
        done.completedAt = instant("2026-03-07T10:00:00Z")
        guard case .updated(let change) = try snooze(#"{"id":"a","until":"2026-03-07T21:00"}"#, done).outcome else {
            Issue.record("expected an update")
            return
        }
        #expect(change.todo.status == .pending && change.todo.completedAt == nil)
    }

    @Test func repeatingSnoozesOneOccurrence() throws {
        let snoozed = try snooze(#"{"id":"r","until":"2026-03-07T21:15"}"#, repeating())
        guard case .occurrence(let todo, let occurrence) = snoozed.outcome else {
            Issue.record("expected an occurrence")
            return
        }
        #expect(todo == repeating())
        // Today in the to-do's zone (UTC): 2026-03-08 01:00Z.
        #expect(occurrence.date == day("2026-03-08"))
        #expect(occurrence.state == .snoozed)
        #expect(occurrence.snoozedUntil == instant("2026-03-07T21:15:00-05:00"))
        #expect(occurrence.changedAt == now)
        let explicit = try snooze(#"{"id":"r","until":"2026-03-07T21:15","occurrenceDate":"2026-03-07"}"#, repeating())
        guard case .occurrence(_, let chosen) = explicit.outcome else {
            Issue.record("expected an occurrence")
            return
        }
        #expect(chosen.date == day("2026-03-07"))
        #expect(SnoozeTodo.result(explicit, account: account)["occurrence"]?["state"] == "snoozed")
    }

    @Test func untilInsideQuietHoursMovesToTheNextEndEvenForARepeatingTodo() throws {
        // 23:00 Saturday → 07:00 Sunday, which is after the spring-forward gap (EDT).
        for todo in [oneOff(), repeating()] {
            let snoozed = try snooze(#"{"id":"\#(todo.id)","until":"2026-03-07T23:00"}"#, todo)
            #expect(snoozed.until == instant("2026-03-08T07:00:00-04:00"))
            #expect(snoozed.quietHoursAdjusted?.requested == instant("2026-03-07T23:00:00-05:00"))
        }
    }

    @Test func untilMustBeInTheFuture() {
        for until in ["2026-03-07T20:00", "2026-03-07T19:59", "2026-03-07", "2026-03-08T01:00:00Z"] {
            expectInvalid("until") { () throws(TodoError) in try snooze(#"{"id":"a","until":"\#(until)"}"#, oneOff()) }
        }
        #expect(throws: Never.self) { () throws(TodoError) in
            try snooze(#"{"id":"a","until":"2026-03-08T01:00:01Z"}"#, oneOff())
        }
    }

    @Test func errors() {
        expectInvalid("until") { () throws(TodoError) in try SnoozeTodo.parse(json(#"{"id":"a"}"#)) }
        expectInvalid("until") { () throws(TodoError) in
            try SnoozeTodo.parse(json(#"{"id":"a","until":"in 10 minutes"}"#))
        }
        expectInvalid("until") { () throws(TodoError) in try SnoozeTodo.parse(json(#"{"id":"a","until":600}"#)) }
        expectInvalid("occurrenceDate") { () throws(TodoError) in
            try SnoozeTodo.parse(json(#"{"id":"a","until":"2026-03-09","occurrenceDate":"today"}"#))
        }
        expectInvalid("id") { () throws(TodoError) in try SnoozeTodo.parse(json(#"{"until":"2026-03-09"}"#)) }
        var deleted = oneOff()
        deleted.deletedAt = now
        #expect(
            expectError { () throws(TodoError) in try snooze(#"{"id":"a","until":"2026-03-09"}"#, deleted) }?.code
                == .notFound)
    }
}
