import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct AddTodoTests {
    let now = instant("2026-03-07T15:00:00-05:00")
    let newYork = Account(timeZone: "America/New_York", defaultTime: "08:30")

    func add(_ arguments: String, account: Account? = nil) throws(TodoError) -> AddTodo.Created {
        try AddTodo.apply(AddTodo.parse(json(arguments)), account: account ?? newYork, now: now, newID: "AB-CD")
    }

    @Test func titleOnlyRingsTomorrowAtTheDefaultTime() throws {
        let created = try add(#"{"title":"  Call the dentist \n"}"#)
        let todo = created.todo
        #expect(todo.id == "ab-cd")
        #expect(todo.title == "Call the dentist")
        #expect(todo.dueAt == instant("2026-03-08T08:30:00-04:00"))
        #expect(todo.timeZone == "America/New_York")
        #expect(todo.source == .mcp)
        #expect(todo.status == .pending)
        #expect(todo.sound == .default)
        #expect(todo.notes == nil && todo.repeatRule == nil)
        #expect(todo.createdAt == now && todo.changedAt == now)
        #expect(created.quietHoursAdjusted == nil)
    }

    @Test func dueInEachForm() throws {
        #expect(try add(#"{"title":"x","due":"2026-03-08T02:30"}"#).todo.dueAt == instant("2026-03-08T03:00:00-04:00"))
        #expect(try add(#"{"title":"x","due":"2026-11-01T01:30"}"#).todo.dueAt == instant("2026-11-01T01:30:00-04:00"))
        #expect(try add(#"{"title":"x","due":"2026-03-20"}"#).todo.dueAt == instant("2026-03-20T08:30:00-04:00"))
        #expect(
            try add(#"{"title":"x","due":"2026-03-20T09:00:00+09:00"}"#).todo.dueAt == instant("2026-03-20T00:00:00Z"))
        #expect(
            try add(#"{"title":"x","due":null,"notes":null,"sound":null,"repeat":null}"#).todo.dueAt
                == instant("2026-03-08T08:30:00-04:00"))
    }

    @Test func allFields() throws {
        let todo = try add(
            #"{"title":"Gym","due":"2026-03-09T07:30","notes":"bring towel","sound":"marimba","repeat":{"kind":"weekly","interval":2,"weekdays":[2,4]}}"#
        ).todo
        #expect(todo.notes == "bring towel")
        #expect(todo.sound == .marimba)
        #expect(todo.repeatRule == RepeatRule(kind: .weekly, interval: 2, weekdays: [.monday, .wednesday]))
        #expect(try add(#"{"title":"x","repeat":{"kind":"none"},"notes":""}"#).todo.repeatRule == nil)
        #expect(try add(#"{"title":"x","notes":"   "}"#).todo.notes == nil)
    }

    @Test func titleAndNotesLengthsCountCharacters() throws {
        let emoji = String(repeating: "😀", count: 200)
        #expect(try add(#"{"title":"\#(emoji)"}"#).todo.title == emoji)
        expectInvalid("title") { () throws(TodoError) in try add(#"{"title":"\#(emoji)a"}"#) }
        let notes = String(repeating: "n", count: 4000)
        #expect(try add(#"{"title":"x","notes":"\#(notes)"}"#).todo.notes == notes)
        expectInvalid("notes") { () throws(TodoError) in try add(#"{"title":"x","notes":"\#(notes)n"}"#) }
    }

    @Test(arguments: [
        (#"{}"#, "title"),
        (#"{"title":""}"#, "title"),
        (#"{"title":"   "}"#, "title"),
        (#"{"title":null}"#, "title"),
        (#"{"title":42}"#, "title"),
        (#"{"title":"x","due":"tomorrow 9am"}"#, "due"),
        (#"{"title":"x","due":"2026-03-09T07:30:00"}"#, "due"),
        (#"{"title":"x","due":1773041400}"#, "due"),
        (#"{"title":"x","notes":["a"]}"#, "notes"),
        (#"{"title":"x","sound":"bell"}"#, "sound"),
        (#"{"title":"x","sound":"Default"}"#, "sound"),
        (#"{"title":"x","repeat":{"kind":"weekly","weekdays":[8]}}"#, "repeat.weekdays[0]"),
        (#"{"title":"x","repeat":{"kind":"daily","interval":100}}"#, "repeat.interval"),
        (#"{"title":"x","repeat":"daily"}"#, "repeat"),
        (#"{"title":"x","priority":"high"}"#, "priority"),
        (#"["x"]"#, nil),
    ])
    func invalidArguments(arguments: String, field: String?) {
        expectInvalid(field) { () throws(TodoError) in try AddTodo.parse(json(arguments)) }
    }

    @Test func argumentsMayBeAbsentOnlyWhenNothingIsRequired() {
        expectInvalid("title") { () throws(TodoError) in try AddTodo.parse(nil) }
    }

    @Test func paymentRequiredWhenTrialAndSubscriptionEnded() {
        let lapsed = Account(
            trialStartedAt: now.addingTimeInterval(-40 * 86400), subscribedUntil: now.addingTimeInterval(-1))
        let error = expectError { () throws(TodoError) in try add(#"{"title":"x"}"#, account: lapsed) }
        #expect(error == .paymentRequired)
        #expect(error?.json["error"]?["code"] == "PAYMENT_REQUIRED")
        let hinted = Account(trialStartedAt: now.addingTimeInterval(-40 * 86400), canAddTodos: 1)
        #expect(throws: Never.self) { () throws(TodoError) in try add(#"{"title":"x"}"#, account: hinted) }
    }

    @Test func quietHoursMoveOneOffsToTheNextEndAndRepeatsToTheSameDay() throws {
        let quiet = Account(timeZone: "Asia/Tokyo", quietHoursStart: "22:00", quietHoursEnd: "07:00")
        let oneOff = try add(#"{"title":"x","due":"2026-03-10T23:30"}"#, account: quiet)
        #expect(oneOff.todo.dueAt == instant("2026-03-11T07:00:00+09:00"))
        #expect(oneOff.quietHoursAdjusted?.requested == instant("2026-03-10T23:30:00+09:00"))
        let daily = try add(#"{"title":"x","due":"2026-03-10T23:30","repeat":{"kind":"daily"}}"#, account: quiet)
        #expect(daily.todo.dueAt == instant("2026-03-10T07:00:00+09:00"))
        #expect(daily.quietHoursAdjusted?.actual == instant("2026-03-10T07:00:00+09:00"))
        // The default due time is an alarm time too.
        let early = Account(
            timeZone: "Asia/Tokyo", defaultTime: "06:00", quietHoursStart: "22:00", quietHoursEnd: "07:00")
        #expect(try add(#"{"title":"x"}"#, account: early).todo.dueAt == instant("2026-03-09T07:00:00+09:00"))
    }

    @Test func repeatEndingBeforeTheFirstOccurrenceIsRejected() {
        expectInvalid("repeat.end.until") { () throws(TodoError) in
            try add(
                #"{"title":"x","due":"2026-03-20","repeat":{"kind":"daily","end":{"kind":"until","until":"2026-03-19"}}}"#
            )
        }
        #expect(throws: Never.self) { () throws(TodoError) in
            try add(
                #"{"title":"x","due":"2026-03-20","repeat":{"kind":"daily","end":{"kind":"until","until":"2026-03-20"}}}"#
            )
        }
    }

    @Test func resultShowsTheCreatedItemInTheAccountZone() throws {
        let quiet = Account(timeZone: "America/New_York", quietHoursStart: "22:00", quietHoursEnd: "07:00")
        let created = try add(#"{"title":"Gym","due":"2026-03-09T23:00","repeat":{"kind":"weekly"}}"#, account: quiet)
        let result = AddTodo.result(created, account: quiet)
        #expect(result["timeZone"] == "America/New_York")
        #expect(result["todo"]?["id"] == "ab-cd")
        #expect(result["todo"]?["due"] == "2026-03-09T07:00:00-04:00")
        #expect(result["todo"]?["repeatDescription"] == "every week on Monday at 07:00")
        #expect(result["todo"]?["repeatDescriptionJa"] == nil)
        #expect(result["todo"]?["source"] == "mcp")
        #expect(result["quietHoursAdjusted"]?["requested"] == "2026-03-09T23:00:00-04:00")
        #expect(result["quietHoursAdjusted"]?["actual"] == "2026-03-09T07:00:00-04:00")
        let japanese = Account(locale: "ja_JP", timeZone: "Asia/Tokyo")
        let ja = AddTodo.result(
            try add(#"{"title":"x","due":"2026-03-09T07:30","repeat":{"kind":"weekly"}}"#, account: japanese),
            account: japanese)
        #expect(ja["todo"]?["repeatDescriptionJa"] == "毎週 月曜日 07:30")
        #expect(ja["quietHoursAdjusted"] == nil)
    }
}
