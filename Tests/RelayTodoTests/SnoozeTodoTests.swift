import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct SnoozeTodoTests {
    /// Saturday evening before the spring-forward night in New York.
    let now = instant("2026-03-07T20:00:00-05:00")
    let account = Account(timeZone: "America/New_York", quietHoursStart: "22:00", quietHoursEnd: "07:00")
    /// A one-off that rang an hour ago.
    let rang = oneOff(due: "2026-03-07T19:00:00-05:00")

    func snooze(_ arguments: String, _ current: Todo?) throws(TodoError) -> SnoozeTodo.Snoozed {
        try SnoozeTodo.apply(SnoozeTodo.parse(json(arguments)), current: current, account: account, now: now)
    }

    /// A to-do repeating by `rule` from `due`, on the New York wall clock.
    func series(_ rule: RepeatRule, due: String) -> Todo {
        var todo = repeating(rule: rule, due: due)
        todo.timeZone = "America/New_York"
        return todo
    }

    @Test func oneOffGetsSnoozedUntil() throws {
        let snoozed = try snooze(#"{"id":"a","until":"2026-03-07T21:00"}"#, rang)
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
        #expect(result["message"] == "It rings again at 2026-03-07T21:00:00-05:00.")
    }

    @Test func aDoneOneOffIsReopened() throws {
        var done = rang
        done.status = .done
        done.completedAt = instant("2026-03-07T19:01:00-05:00")
        guard case .updated(let change) = try snooze(#"{"id":"a","until":"2026-03-07T21:00"}"#, done).outcome else {
            Issue.record("expected an update")
            return
        }
        #expect(change.todo.status == .pending && change.todo.completedAt == nil)
    }

    /// A snooze stops the alarm and sets a later one; it never makes a to-do ring before its due time.
    @Test func untilMustBeAfterTheAlarmItPostpones() throws {
        let tomorrow = oneOff(due: "2026-03-09T09:00:00-04:00")
        for until in ["2026-03-08T10:00", "2026-03-09T09:00", "2026-03-09T12:59:59Z"] {
            let error = expectError { () throws(TodoError) in
                try snooze(#"{"id":"a","until":"\#(until)"}"#, tomorrow)
            }
            #expect(error?.field == "until" && error?.message.contains("update_todo") == true, "\(until)")
            #expect(error?.message.contains("09:00") == false, "errors name no times of the to-do")
        }
        #expect(try snooze(#"{"id":"a","until":"2026-03-09T09:01"}"#, tomorrow).until > tomorrow.dueAt!)
        // A repeating to-do: the alarm of that day's occurrence (19:30 on the 9th, EDT).
        let daily = series(RepeatRule(kind: .daily), due: "2026-03-01T19:30:00-05:00")
        expectInvalid("until") { () throws(TodoError) in
            try snooze(#"{"id":"r","until":"2026-03-09T19:30","occurrenceDate":"2026-03-09"}"#, daily)
        }
        let later = try snooze(#"{"id":"r","until":"2026-03-09T19:45","occurrenceDate":"2026-03-09"}"#, daily)
        #expect(later.until == instant("2026-03-09T19:45:00-04:00") && !later.skipped)
    }

    @Test func repeatingSnoozesTodaysOccurrenceInTheTodosZone() throws {
        // Daily at 19:30 in New York: today's (the 7th) rang half an hour ago.
        let daily = series(RepeatRule(kind: .daily), due: "2026-03-01T19:30:00-05:00")
        let snoozed = try snooze(#"{"id":"r","until":"2026-03-07T21:15"}"#, daily)
        guard case .occurrence(let todo, let occurrence) = snoozed.outcome else {
            Issue.record("expected an occurrence")
            return
        }
        #expect(todo == daily)
        #expect(occurrence.date == day("2026-03-07"))
        #expect(occurrence.state == .snoozed)
        #expect(occurrence.snoozedUntil == instant("2026-03-07T21:15:00-05:00"))
        #expect(occurrence.changedAt == now)
        let result = SnoozeTodo.result(snoozed, account: account)
        #expect(result["occurrence"]?["state"] == "snoozed")
        #expect(result["snoozedUntil"] == "2026-03-07T21:15:00-05:00")
    }

    /// "Tomorrow" on a repeat: the next occurrence already rings, so this day is skipped, not snoozed to a
    /// minute that would ring twice. The next alarm is on the spring-forward day (EDT).
    @Test func untilAtOrAfterTheNextOccurrencesAlarmSkipsTheDay() throws {
        let daily = series(RepeatRule(kind: .daily), due: "2026-03-01T19:30:00-05:00")
        for until in ["2026-03-08T19:30", "2026-03-08T20:00", "2026-03-12"] {
            let skipped = try snooze(#"{"id":"r","until":"\#(until)"}"#, daily)
            guard case .occurrence(_, let occurrence) = skipped.outcome else {
                Issue.record("expected an occurrence")
                return
            }
            #expect(occurrence.state == .skipped && occurrence.snoozedUntil == nil, "\(until)")
            #expect(occurrence.date == day("2026-03-07"))
            #expect(skipped.next == .init(date: day("2026-03-08"), alarm: instant("2026-03-08T19:30:00-04:00")))
            let result = SnoozeTodo.result(skipped, account: account)
            #expect(result["snoozedUntil"] == .null)
            #expect(result["occurrence"]?["state"] == "skipped")
            #expect(result["message"]?.stringValue?.contains("2026-03-08T19:30:00-04:00") == true)
        }
        // One minute before the next alarm is still a snooze.
        let snoozed = try snooze(#"{"id":"r","until":"2026-03-08T19:29"}"#, daily)
        #expect(!snoozed.skipped)
        // Quiet hours can make it so: 23:00 moves to 07:00, when the next occurrence of a 07:00 repeat rings.
        let early = series(RepeatRule(kind: .daily), due: "2026-03-01T07:00:00-05:00")
        let moved = try snooze(#"{"id":"r","until":"2026-03-07T23:00"}"#, early)
        #expect(moved.quietHoursAdjusted?.actual == instant("2026-03-08T07:00:00-04:00") && moved.skipped)
        // The last occurrence of a repeat has no next one: a plain snooze.
        let ending = series(RepeatRule(kind: .daily, end: .until(day("2026-03-07"))), due: "2026-03-01T19:30:00-05:00")
        #expect(try !snooze(#"{"id":"r","until":"2026-03-09T10:00"}"#, ending).skipped)
    }

    @Test func theOccurrenceMustBeADayTheToDoRepeatsOn() throws {
        // Mondays and Wednesdays at 08:00 from Monday March 2 to the end of March.
        let rule = RepeatRule(kind: .weekly, weekdays: [.monday, .wednesday], end: .until(day("2026-03-31")))
        let todo = series(rule, due: "2026-03-02T08:00:00-05:00")
        let cases = [
            (#""occurrenceDate":"2026-03-03","#, "2026-03-03 is not a day", "2026-03-02 and 2026-03-04"),
            (#""occurrenceDate":"2026-02-23","#, "2026-02-23 is not a day", "first occurrence is 2026-03-02"),
            (#""occurrenceDate":"2026-04-06","#, "2026-04-06 is not a day", "last occurrence is 2026-03-30"),
            ("", "today (2026-03-07 in America/New_York)", "2026-03-04 and 2026-03-09"),
        ]
        for (date, subject, hint) in cases {
            let error = expectError { () throws(TodoError) in
                try snooze(#"{"id":"r",\#(date)"until":"2026-05-01T10:00"}"#, todo)
            }
            #expect(error?.code == .invalidArgument && error?.field == "occurrenceDate", "\(date)")
            #expect(error?.message.contains(subject) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains(hint) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("08:00") == false)
        }
        #expect(throws: Never.self) { () throws(TodoError) in
            try snooze(#"{"id":"r","occurrenceDate":"2026-03-30","until":"2026-03-30T09:00"}"#, todo)
        }
    }

    @Test func untilInsideQuietHoursMovesToTheNextEndEvenForARepeatingTodo() throws {
        // 23:00 Saturday → 07:00 Sunday, which is after the spring-forward gap (EDT).
        let daily = series(RepeatRule(kind: .daily), due: "2026-03-01T19:30:00-05:00")
        for todo in [rang, daily] {
            let snoozed = try snooze(#"{"id":"\#(todo.id)","until":"2026-03-07T23:00"}"#, todo)
            #expect(snoozed.until == instant("2026-03-08T07:00:00-04:00"))
            #expect(snoozed.quietHoursAdjusted?.requested == instant("2026-03-07T23:00:00-05:00"))
            #expect(!snoozed.skipped)
        }
    }

    @Test func untilMustBeInTheFuture() {
        for until in ["2026-03-07T20:00", "2026-03-07T19:59", "2026-03-07", "2026-03-08T01:00:00Z"] {
            expectInvalid("until") { () throws(TodoError) in try snooze(#"{"id":"a","until":"\#(until)"}"#, rang) }
        }
        #expect(throws: Never.self) { () throws(TodoError) in
            try snooze(#"{"id":"a","until":"2026-03-08T01:00:01Z"}"#, rang)
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

/// Issue 42, point 5: smaller untruths.
@Suite struct SmallerUntruthsTests {
    @Test func aSnoozeThatReopensADoneOneOffSaysSo() throws {
        let account = Account(timeZone: "America/New_York")
        var done = Todo(
            id: "a", title: "Call", dueAt: instant("2026-03-07T20:00:00-05:00"), timeZone: "America/New_York",
            status: .done)
        done.completedAt = instant("2026-03-07T20:05:00-05:00")
        let snoozed = try SnoozeTodo.apply(
            SnoozeTodo.parse(["id": "a", "until": "2026-03-07T21:00"]), current: done, account: account,
            now: instant("2026-03-07T20:10:00-05:00"))
        let message = SnoozeTodo.result(snoozed, account: account)["message"]?.stringValue ?? ""
        #expect(message.contains("reopens it") && message.contains("pending again"), "\(message)")
    }

    /// (tool arguments parsed, field)
    @Test(arguments: [
        ("list_todos", #"{"date":"0001-01-01"}"#, "date"),
        ("list_todos", #"{"from":"1969-12-31"}"#, "from"),
        ("add_todo", #"{"title":"x","due":"0001-01-01T09:00"}"#, "due"),
        ("add_todo", #"{"title":"x","due":"0001-01-01"}"#, "due"),
        ("snooze_todo", #"{"id":"a","until":"1969-12-31T23:00:00Z"}"#, "until"),
    ])
    func yearsBefore1970AreRefused(tool: String, arguments: String, field: String) throws {
        let parsed = try JSONValue(parsing: Array(arguments.utf8))
        let result = Result { () throws(TodoError) in
            switch tool {
            case "list_todos": _ = try ListTodos.parse(parsed)
            case "add_todo": _ = try AddTodo.parse(parsed)
            default: _ = try SnoozeTodo.parse(parsed)
            }
        }
        guard case .failure(let error) = result else {
            Issue.record("accepted \(arguments)")
            return
        }
        #expect(error.code == .invalidArgument && error.field == field, "\(error)")
    }
}

/// Issue 42, point 5: a title or notes a person cannot see is refused; a flag emoji's tags are fine.
@Suite struct InvisibleTextTests {
    @Test(arguments: [
        "\u{200B}", "\u{200B}\u{200D}\u{FEFF}", "\u{E0041}\u{E0042}", "Buy milk\u{E0069}\u{E0067}\u{E006E}", "\u{3164}",
        "\u{FE0F}",
    ])
    func refused(title: String) {
        let result = Result { () throws(TodoError) in try AddTodo.parse(["title": .string(title)]) }
        guard case .failure(let error) = result else {
            Issue.record("accepted \(title.unicodeScalars.map { String($0.value, radix: 16) })")
            return
        }
        #expect(error.code == .invalidArgument && error.field == "title", "\(error)")
        let notes = Result { () throws(TodoError) in try AddTodo.parse(["title": "x", "notes": .string(title + "a")]) }
        if title.unicodeScalars.contains(where: { (0xE0000...0xE007F).contains($0.value) }) {
            guard case .failure = notes else {
                Issue.record("notes with hidden tags accepted")
                return
            }
        }
    }

    @Test(arguments: ["🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} trip", "牛乳", "a\u{200D}b", "👍🏽"])
    func accepted(title: String) throws {
        _ = try AddTodo.parse(["title": .string(title)])
    }
}

/// Issue 42, point 5: `snooze_todo` says what daylight saving did to `until`, as `add_todo` does.
@Suite struct SnoozeClockNoticeTests {
    let account = Account(timeZone: "America/New_York")

    func snooze(_ until: String, due: String, now: String) throws -> JSONValue {
        let todo = Todo(id: "a", title: "Call", dueAt: instant(due), timeZone: "America/New_York")
        let snoozed = try SnoozeTodo.apply(
            SnoozeTodo.parse(["id": "a", "until": .string(until)]), current: todo, account: account, now: instant(now))
        return SnoozeTodo.result(snoozed, account: account)
    }

    @Test func aTimeTheClocksSkip() throws {
        let result = try snooze("2026-03-08T02:30", due: "2026-03-08T01:00:00-05:00", now: "2026-03-08T01:10:00-05:00")
        #expect(result["snoozedUntil"] == "2026-03-08T03:00:00-04:00")
        let notice = result["notices"]?.arrayValue?.first?.stringValue ?? ""
        #expect(notice.contains("02:30 does not exist on 2026-03-08") && notice.contains("03:00"), "\(notice)")
    }

    @Test func aTimeTheClocksShowTwice() throws {
        let result = try snooze("2026-11-01T01:30", due: "2026-11-01T00:30:00-04:00", now: "2026-11-01T00:40:00-04:00")
        #expect(result["snoozedUntil"] == "2026-11-01T01:30:00-04:00")
        let notice = result["notices"]?.arrayValue?.first?.stringValue ?? ""
        #expect(
            notice.contains("happens twice") && notice.contains("2026-11-01T01:30:00-04:00")
                && notice.contains("2026-11-01T01:30:00-05:00"), "\(notice)")
    }

    @Test func anOrdinaryTimeHasNoNotice() throws {
        let result = try snooze("2026-06-10T10:00", due: "2026-06-10T09:00:00-04:00", now: "2026-06-10T09:10:00-04:00")
        #expect(result["notices"] == nil)
    }
}
