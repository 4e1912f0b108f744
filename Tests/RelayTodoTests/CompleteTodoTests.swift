import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct CompleteTodoTests {
    // 23:30 in UTC is already the next day in Tokyo.
    let now = instant("2026-06-09T23:30:00Z")
    let account = Account.defaults

    func complete(_ arguments: String, _ current: Todo?, existing: Occurrence? = nil) throws(TodoError)
        -> CompleteTodo.Outcome
    {
        try CompleteTodo.apply(
            CompleteTodo.parse(json(arguments)), current: current, existing: existing, account: account, now: now)
    }

    @Test func oneOffBecomesDone() throws {
        guard case .updated(let change) = try complete(#"{"id":"a"}"#, oneOff()) else {
            Issue.record("expected an update")
            return
        }
        #expect(change.todo.status == .done)
        #expect(change.todo.completedAt == now)
        #expect(change.fields == [.status, .completedAt, .changedAt])
        let result = CompleteTodo.result(.updated(change), account: account)
        #expect(result["alreadyDone"] == false)
        #expect(result["occurrence"] == .null)
        #expect(result["todo"]?["status"] == "done")
    }

    @Test func completingTwiceSucceedsAndSaysSo() throws {
        var done = oneOff()
        done.status = .done
        let outcome = try complete(#"{"id":"a"}"#, done)
        #expect(outcome == .alreadyDone(done, nil))
        #expect(CompleteTodo.result(outcome, account: account)["alreadyDone"] == true)
        // occurrenceDate is ignored for one-offs.
        #expect(try complete(#"{"id":"a","occurrenceDate":"2026-06-01"}"#, done) == .alreadyDone(done, nil))
    }

    @Test func repeatingDefaultsToTodayInTheTodosOwnZone() throws {
        var todo = repeating()
        todo.timeZone = "Asia/Tokyo"
        let request = CompleteTodo.Request(id: "r")
        #expect(CompleteTodo.occurrenceDate(request, todo: todo, account: account, now: now) == day("2026-06-10"))
        guard case .occurrence(_, let occurrence) = try complete(#"{"id":"r"}"#, todo) else {
            Issue.record("expected an occurrence")
            return
        }
        #expect(occurrence == Occurrence(todoId: "r", date: day("2026-06-10"), state: .done, changedAt: now))
        #expect(occurrence.recordName == "r|2026-06-10")
        #expect(todo.status == .pending)
        // A to-do without a valid zone of its own uses the Account's.
        todo.timeZone = "Bogus/Zone"
        #expect(CompleteTodo.occurrenceDate(request, todo: todo, account: account, now: now) == day("2026-06-09"))
    }

    @Test func repeatingWithAnExplicitDate() throws {
        let outcome = try complete(#"{"id":"r","occurrenceDate":"2026-06-12"}"#, repeating())
        guard case .occurrence(_, let occurrence) = outcome else {
            Issue.record("expected an occurrence")
            return
        }
        #expect(occurrence.date == day("2026-06-12"))
        let result = CompleteTodo.result(outcome, account: account)
        #expect(result["occurrence"]?["date"] == "2026-06-12")
        #expect(result["occurrence"]?["state"] == "done")
        #expect(result["todo"]?["repeatDescription"] == "every day at 07:30")
    }

    @Test func anOccurrenceAlreadyDoneIsNotWrittenAgainButASnoozedOneIs() throws {
        let done = Occurrence(
            todoId: "r", date: day("2026-06-12"), state: .done, changedAt: instant("2026-06-08T00:00:00Z"))
        #expect(
            try complete(#"{"id":"r","occurrenceDate":"2026-06-12"}"#, repeating(), existing: done)
                == .alreadyDone(repeating(), done))
        var snoozed = done
        snoozed.state = .snoozed
        guard
            case .occurrence(_, let occurrence) = try complete(
                #"{"id":"r","occurrenceDate":"2026-06-12"}"#, repeating(), existing: snoozed)
        else {
            Issue.record("expected an occurrence")
            return
        }
        #expect(occurrence.state == .done && occurrence.snoozedUntil == nil && occurrence.changedAt == now)
    }

    /// The app's "done" stops the ringing alarm; a pending snooze must not ring afterwards either.
    @Test func completingASnoozedOneOffCancelsTheSnooze() throws {
        var snoozed = oneOff()
        snoozed.snoozedUntil = instant("2026-06-10T10:00:00Z")
        guard case .updated(let change) = try complete(#"{"id":"a"}"#, snoozed) else {
            Issue.record("expected an update")
            return
        }
        #expect(change.todo.snoozedUntil == nil && change.todo.status == .done)
        #expect(change.fields == [.status, .completedAt, .snoozedUntil, .changedAt])
    }

    /// Only days the repeat rings on can be completed: the wrong weekday, a day before the first occurrence or
    /// after the end would write a record for a day that never rings while the real one stays open.
    @Test func theOccurrenceMustBeADayTheToDoRepeatsOn() throws {
        let weekly = repeating(rule: RepeatRule(kind: .weekly, weekdays: [.tuesday, .friday], end: .count(4)))
        // From Wednesday 2026-06-10 (its start counts): 10, 12, 16, 19 June.
        for (date, hint) in [
            ("2026-06-11", "2026-06-10 and 2026-06-12"), ("2026-06-09", "first occurrence is 2026-06-10"),
            ("2026-06-23", "last occurrence is 2026-06-19"), ("2026-06-13", "2026-06-12 and 2026-06-16"),
        ] {
            let error = expectError { () throws(TodoError) in
                try complete(#"{"id":"r","occurrenceDate":"\#(date)"}"#, weekly)
            }
            #expect(error?.code == .invalidArgument && error?.field == "occurrenceDate", "\(date)")
            #expect(error?.message.contains(hint) == true, "\(error?.message ?? "")")
        }
        for date in ["2026-06-10", "2026-06-12", "2026-06-16", "2026-06-19"] {
            #expect(throws: Never.self, "\(date)") { () throws(TodoError) in
                try complete(#"{"id":"r","occurrenceDate":"\#(date)"}"#, weekly)
            }
        }
        // Today (2026-06-09 in UTC) is before the first occurrence: refused, naming the field to pass.
        let error = expectError { () throws(TodoError) in try complete(#"{"id":"r"}"#, weekly) }
        #expect(error?.field == "occurrenceDate" && error?.message.contains("today (2026-06-09 in UTC)") == true)
    }

    @Test func errors() {
        var deleted = repeating()
        deleted.deletedAt = now
        #expect(expectError { () throws(TodoError) in try complete(#"{"id":"r"}"#, deleted) }?.code == .notFound)
        #expect(expectError { () throws(TodoError) in try complete(#"{"id":"r"}"#, nil) }?.code == .notFound)
        expectInvalid("occurrenceDate") { () throws(TodoError) in
            try CompleteTodo.parse(json(#"{"id":"r","occurrenceDate":"June 12"}"#))
        }
        expectInvalid("occurrenceDate") { () throws(TodoError) in
            try CompleteTodo.parse(json(#"{"id":"r","occurrenceDate":"2026-06-31"}"#))
        }
        expectInvalid("id") { () throws(TodoError) in try CompleteTodo.parse(json(#"{}"#)) }
        expectInvalid("when") { () throws(TodoError) in try CompleteTodo.parse(json(#"{"id":"r","when":"now"}"#)) }
    }
}
