import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

/// What happens to a due time on its way to the record (`DuePlan`), in add_todo and update_todo alike.
@Suite struct DuePlanTests {
    /// Saturday afternoon before the spring-forward night in New York.
    let now = instant("2026-03-07T15:00:00-05:00")
    let newYork = Account(timeZone: "America/New_York")

    func add(_ arguments: String, account: Account? = nil) throws(TodoError) -> AddTodo.Created {
        try AddTodo.apply(AddTodo.parse(json(arguments)), account: account ?? newYork, now: now, newID: "n")
    }

    func update(_ arguments: String, _ todo: Todo, account: Account? = nil) throws(TodoError) -> UpdateTodo.Updated {
        try UpdateTodo.apply(UpdateTodo.parse(json(arguments)), current: todo, account: account ?? newYork, now: now)
    }

    /// A repeat's first occurrence is its due time, so it must be a day the rule rings on: a Tuesday due for
    /// "Mondays and Wednesdays" moves to the Wednesday, at the same time of day, and the result says so.
    @Test func aFirstOccurrenceOnAnUnlistedDayMovesToTheNextListedOne() throws {
        let created = try add(#"{"title":"x","due":"2026-03-10T07:30","repeat":{"kind":"weekly","weekdays":[2,4]}}"#)
        #expect(created.todo.dueAt == instant("2026-03-11T07:30:00-04:00"))
        let aligned = try #require(created.dueAligned)
        #expect(aligned.requested == instant("2026-03-10T07:30:00-04:00"))
        #expect(aligned.message.contains("2026-03-10 (Tuesday)") && aligned.message.contains("2026-03-11 (Wednesday)"))
        let result = AddTodo.result(created, account: newYork)
        #expect(result["dueAligned"]?["actual"] == "2026-03-11T07:30:00-04:00")
        // The first Monday of the month, asked for on Thursday the 5th: Monday April 6.
        let first = try add(
            #"{"title":"x","due":"2026-03-05T09:00","repeat":{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":1,"weekday":2}}}"#
        )
        #expect(first.todo.dueAt == instant("2026-04-06T09:00:00-04:00"))
        // Rules whose day comes from due are never moved.
        for rule in [#"{"kind":"daily"}"#, #"{"kind":"weekly"}"#, #"{"kind":"monthly"}"#, #"{"kind":"yearly"}"#] {
            let plain = try add(#"{"title":"x","due":"2026-03-10T07:30","repeat":\#(rule)}"#)
            #expect(plain.dueAligned == nil && plain.todo.dueAt == instant("2026-03-10T07:30:00-04:00"), "\(rule)")
        }
        // Moved past its own end: refused.
        expectInvalid("repeat.end.until") { () throws(TodoError) in
            try add(
                #"{"title":"x","due":"2026-03-10","repeat":{"kind":"weekly","weekdays":[2],"end":{"kind":"until","until":"2026-03-15"}}}"#
            )
        }
    }

    /// update_todo with a new rule and no new due moves the stored due on the to-do's own wall clock.
    @Test func aNewRuleAlignsTheStoredDueInTheTodosZone() throws {
        var todo = oneOff(due: "2026-03-10T07:30:00+00:00")
        todo.timeZone = "Europe/London"
        let updated = try update(#"{"id":"a","repeat":{"kind":"weekly","weekdays":[6]}}"#, todo)
        #expect(updated.change.todo.dueAt == instant("2026-03-13T07:30:00+00:00"))
        #expect(updated.change.todo.timeZone == "Europe/London")
        #expect(updated.dueAligned != nil)
        #expect(updated.change.fields == [.repeatRule, .dueAt, .changedAt])
    }

    @Test func aTimeTheClocksSkipIsMovedAndNamed() throws {
        let created = try add(#"{"title":"x","due":"2026-03-08T02:30"}"#)
        #expect(created.todo.dueAt == instant("2026-03-08T03:00:00-04:00"))
        #expect(
            created.notices == [
                "02:30 does not exist on 2026-03-08 in America/New_York (the clocks go forward), so the alarm is at 03:00."
            ])
        // The default time on the day after: the same notice.
        let early = Account(timeZone: "America/New_York", defaultTime: "02:15")
        let defaulted = try add(#"{"title":"x"}"#, account: early)
        #expect(defaulted.todo.dueAt == instant("2026-03-08T03:00:00-04:00"))
        #expect(defaulted.notices.first?.contains("02:15 does not exist on 2026-03-08") == true)
        // An instant with an offset is exact: nothing to say. A repeated hour takes the earlier: nothing to say.
        #expect(try add(#"{"title":"x","due":"2026-03-08T07:30:00Z"}"#).notices.isEmpty)
        #expect(try add(#"{"title":"x","due":"2026-11-01T01:30"}"#).notices.isEmpty)
        #expect(
            try add(#"{"title":"x","due":"2026-03-29T01:30"}"#, account: Account(timeZone: "Europe/London")).notices
                == [
                    "01:30 does not exist on 2026-03-29 in Europe/London (the clocks go forward), so the alarm is at 02:00."
                ])
    }

    /// The app keeps an overdue to-do (it just cannot ring), so a past due is saved with a notice.
    @Test func aDueTimeAlreadyPastIsKeptWithANotice() throws {
        let past = try add(#"{"title":"x","due":"2026-03-07T14:00"}"#)
        #expect(past.todo.dueAt == instant("2026-03-07T14:00:00-05:00"))
        #expect(past.notices.count == 1 && past.notices[0].contains("already past"))
        #expect(past.notices[0].contains("2026-03-07T14:00:00-05:00"))
        #expect(AddTodo.result(past, account: newYork)["notices"]?.arrayValue?.count == 1)
        #expect(try add(#"{"title":"x","due":"2026-03-07T15:01"}"#).notices.isEmpty)
        // A repeat that started in the past still rings: nothing to say, unless every occurrence is past.
        #expect(try add(#"{"title":"x","due":"2026-03-01T08:00","repeat":{"kind":"daily"}}"#).notices.isEmpty)
        let ended = try add(
            #"{"title":"x","due":"2026-03-01T08:00","repeat":{"kind":"daily","end":{"kind":"count","count":3}}}"#)
        #expect(ended.notices.first?.contains("last was on 2026-03-03") == true)
        // update_todo: a past due, and a done one-off reopened with a past due.
        #expect(try update(#"{"id":"a","due":"2026-03-06T09:00"}"#, oneOff()).notices.count == 1)
        var done = oneOff(due: "2026-03-01T09:00:00Z")
        done.status = .done
        #expect(try update(#"{"id":"a","status":"pending"}"#, done).notices.count == 1)
        #expect(try update(#"{"id":"a","title":"y"}"#, done).notices.isEmpty)
    }

    /// A done one-off given a repeat: pending again (done and skipped live per day on a repeat, and a
    /// completedAt would let the app purge the series 30 days later), with a notice.
    @Test func aDoneOneOffTurnedIntoARepeatIsPendingAgain() throws {
        var done = oneOff(due: "2026-03-09T09:00:00Z")
        done.status = .done
        done.completedAt = instant("2026-03-06T10:00:00Z")
        done.snoozedUntil = instant("2026-03-09T10:00:00Z")
        let updated = try update(#"{"id":"a","repeat":{"kind":"daily"}}"#, done)
        let todo = updated.change.todo
        #expect(todo.status == .pending && todo.completedAt == nil && todo.snoozedUntil == nil)
        #expect(updated.change.fields == [.repeatRule, .status, .snoozedUntil, .completedAt, .changedAt])
        #expect(updated.notices.first?.contains("It was done") == true)
        let result = UpdateTodo.result(updated, account: newYork)
        #expect(result["notices"]?.arrayValue?.first?.stringValue?.contains("complete_todo") == true)
        // A pending one-off needs no notice.
        #expect(
            try update(#"{"id":"a","repeat":{"kind":"daily"}}"#, oneOff(due: "2026-03-09T09:00:00Z")).notices.isEmpty)
        // status done or skipped on a one-off cancels its snooze too.
        var snoozed = oneOff(due: "2026-03-09T09:00:00Z")
        snoozed.snoozedUntil = instant("2026-03-09T10:00:00Z")
        #expect(try update(#"{"id":"a","status":"done"}"#, snoozed).change.todo.snoozedUntil == nil)
        #expect(try update(#"{"id":"a","status":"skipped"}"#, snoozed).change.todo.snoozedUntil == nil)
        #expect(try update(#"{"id":"a","status":"pending"}"#, snoozed).change.todo.snoozedUntil != nil)
    }

    /// get_me's defaultDueNext is exactly what add_todo without due writes, quiet hours included.
    @Test(arguments: ["America/New_York", "Europe/London", "Asia/Tokyo"])
    func defaultDueNextIsWhatAddTodoUses(zone: String) throws {
        for (defaultTime, start, end) in [("06:00", "22:00", "07:00"), ("09:00", "08:00", "10:30"), ("08:00", "", "")] {
            let account = Account(
                timeZone: zone, defaultTime: defaultTime, quietHoursStart: start, quietHoursEnd: end)
            // Fridays before spring-forward and fall-back weekends in both hemispheres' zones, and an ordinary day.
            for text in [
                "2026-03-07T12:00:00Z", "2026-03-28T12:00:00Z", "2026-10-24T12:00:00Z", "2026-06-10T23:30:00Z",
            ] {
                let at = instant(text)
                let created = try AddTodo.apply(AddTodo.Request(title: "x"), account: account, now: at, newID: "n")
                let shown = GetMe.result(account: account, now: at)["defaultDueNext"]
                #expect(shown == .string(account.rules.format(try #require(created.todo.dueAt))), "\(zone) \(text)")
            }
        }
        let quiet = Account(timeZone: zone, defaultTime: "06:00", quietHoursStart: "22:00", quietHoursEnd: "07:00")
        let shown = GetMe.result(account: quiet, now: instant("2026-06-10T12:00:00Z"))["defaultDueNext"]?.stringValue
        #expect(shown?.contains("T07:00:00") == true, "\(shown ?? "")")
    }

    /// Quiet hours ending at 02:30 on the night New York skips 02:00–03:00: the message names 03:00.
    @Test func aQuietHoursEndInADSTGapIsNamedAsTheTimeUsed() throws {
        let quiet = QuietHours(start: clock("23:00"), end: clock("02:30"))!
        let rules = TimeRules(zoneName: "America/New_York")
        let adjusted = try #require(quiet.adjust(instant("2026-03-07T23:30:00-05:00"), repeating: false, rules: rules))
        #expect(adjusted.actual == instant("2026-03-08T03:00:00-04:00"))
        #expect(adjusted.message.contains("moved to 03:00 the next day (2026-03-08)"), "\(adjusted.message)")
        #expect(adjusted.message.contains("02:30 does not exist that day"), "\(adjusted.message)")
        let ordinary = try #require(quiet.adjust(instant("2026-03-14T23:30:00-04:00"), repeating: false, rules: rules))
        #expect(ordinary.message.contains("moved to 02:30 the next day (2026-03-15)."), "\(ordinary.message)")
    }
}
