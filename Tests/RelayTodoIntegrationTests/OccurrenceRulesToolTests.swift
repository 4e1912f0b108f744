import Foundation
import RelayJSON
import Testing

/// complete_todo and snooze_todo on repeating to-dos behave as the app does (issue 22), over HTTP against the
/// emulator, on DST weekends in New York and London and an ordinary one in Tokyo, checking the stored records.
@Suite struct OccurrenceRulesToolTests {
    /// The user's Account in `weekend.zone` and a to-do the app wrote repeating by `rule` from `due`.
    func setUp(_ weekend: DSTWeekend, now: String, rule: String, due: String) throws -> (ToolHarness, ToolHarness.User)
    {
        let harness = try ToolHarness(now: now)
        let alice = try harness.connect()
        try harness.seedAccount(alice, ["timeZone": field(.string(weekend.zone))])
        try harness.seedAppTodo(alice, "r", due: due, zone: weekend.zone, extra: ["repeatRule": field(.string(rule))])
        return (harness, alice)
    }

    /// Bug 1: a day that is not an occurrence (the wrong weekday, before the first one) is refused naming
    /// occurrenceDate and the nearest occurrences, and nothing is written; a real occurrence is written.
    @Test(arguments: DSTWeekend.all)
    func occurrenceDatesAreChecked(weekend: DSTWeekend) async throws {
        // Sundays at 07:30 from the DST Sunday, three times.
        let rule = #"{"kind":"weekly","interval":1,"weekdays":[1],"end":{"kind":"count","count":3}}"#
        let (harness, alice) = try setUp(
            weekend, now: weekend.onSaturday("07:35"), rule: rule, due: weekend.onSunday("07:30"))
        let refusals: [(String, JSONValue, String)] = [
            ("complete_todo", ["id": "r", "occurrenceDate": .string(weekend.saturday)], "first occurrence is"),
            (
                "complete_todo", ["id": "r", "occurrenceDate": .string(weekend.monday)],
                "nearest occurrences are \(weekend.sunday) and \(weekend.nextSunday)"
            ),
            (
                "snooze_todo",
                ["id": "r", "occurrenceDate": .string(weekend.monday), "until": .string("\(weekend.monday)T09:00")],
                "nearest occurrences are \(weekend.sunday) and \(weekend.nextSunday)"
            ),
            // Without occurrenceDate: today (the Saturday) is not a Sunday.
            ("complete_todo", ["id": "r"], "today (\(weekend.saturday) in \(weekend.zone))"),
        ]
        for (tool, arguments, hint) in refusals {
            let reply = try await harness.call(tool, arguments, as: alice)
            #expect(reply.errorCode == "INVALID_ARGUMENT" && reply.errorField == "occurrenceDate", "\(reply)")
            #expect(reply.text.contains(hint), "\(reply.text)")
        }
        #expect(try harness.stored(alice, "Occurrence").isEmpty)
        let done = try await harness.call(
            "complete_todo", ["id": "r", "occurrenceDate": .string(weekend.sunday)], as: alice)
        #expect(done.content["occurrence"]?["state"] == "done", "\(done)")
        let stored = try harness.stored(alice, "Occurrence")
        #expect(Array(stored.keys) == ["r|\(weekend.sunday)"])
        #expect(stored["r|\(weekend.sunday)"]?["fields"]?["state"] == field("done"))
    }

    /// Bug 3: "tomorrow" on a repeat. Snoozing today's occurrence to at or after the next occurrence's alarm
    /// (07:30 on the DST Sunday) marks today skipped instead; one minute earlier is an ordinary snooze.
    @Test(arguments: DSTWeekend.all)
    func snoozingPastTheNextAlarmSkipsTheDay(weekend: DSTWeekend) async throws {
        let (harness, alice) = try setUp(
            weekend, now: weekend.onSaturday("07:35"),
            rule: #"{"kind":"daily","interval":1,"weekdays":[],"end":{"kind":"never"}}"#,
            due: weekend.onSaturday("07:30"))
        let name = "r|\(weekend.saturday)"
        let snoozed = try await harness.call(
            "snooze_todo", ["id": "r", "until": .string("\(weekend.sunday)T07:29")], as: alice)
        #expect(snoozed.content["snoozedUntil"] == .string(weekend.onSunday("07:29")), "\(snoozed)")
        var fields = try harness.fields(alice, name, type: "Occurrence")
        #expect(fields["state"] == field("snoozed"))
        #expect(fields["snoozedUntil"] == timestamp(weekend.onSunday("07:29")))

        let skipped = try await harness.call(
            "snooze_todo", ["id": "r", "until": .string("\(weekend.sunday)T07:30")], as: alice)
        #expect(!skipped.isError, "\(skipped)")
        #expect(skipped.content["snoozedUntil"] == .null)
        #expect(skipped.content["occurrence"]?["state"] == "skipped")
        #expect(skipped.content["message"]?.stringValue?.contains(weekend.onSunday("07:30")) == true, "\(skipped)")
        fields = try harness.fields(alice, name, type: "Occurrence")
        #expect(fields["state"] == field("skipped"))
        #expect(fields["snoozedUntil"] == nil)
        // "Tomorrow" as a date (the default time, 09:00) is past the next alarm too.
        let tomorrow = try await harness.call("snooze_todo", ["id": "r", "until": .string(weekend.sunday)], as: alice)
        #expect(tomorrow.content["occurrence"]?["state"] == "skipped", "\(tomorrow)")
        // Nothing was written for the Sunday: its own alarm still rings.
        #expect(try harness.stored(alice, "Occurrence").keys.sorted() == [name])
    }

    /// A snooze postpones; it never makes an alarm ring earlier than the one it snoozes. Nothing is written.
    @Test(arguments: DSTWeekend.all)
    func snoozingBeforeTheAlarmIsRefused(weekend: DSTWeekend) async throws {
        let (harness, alice) = try setUp(
            weekend, now: weekend.onSaturday("06:00"),
            rule: #"{"kind":"daily","interval":1,"weekdays":[],"end":{"kind":"never"}}"#,
            due: weekend.onSaturday("07:30"))
        try harness.seedAppTodo(alice, "a", due: weekend.onSunday("07:30"), zone: weekend.zone)
        let before = try harness.stored(alice, "Todo")
        for (id, until) in [
            ("r", "\(weekend.saturday)T07:00"), ("r", "\(weekend.saturday)T07:30"), ("a", "\(weekend.sunday)T07:00"),
        ] {
            let reply = try await harness.call("snooze_todo", ["id": .string(id), "until": .string(until)], as: alice)
            #expect(reply.errorCode == "INVALID_ARGUMENT" && reply.errorField == "until", "\(reply)")
            #expect(reply.text.contains("update_todo") && !reply.text.contains("07:30"), "\(reply.text)")
        }
        #expect(try harness.stored(alice, "Todo") == before)
        #expect(try harness.stored(alice, "Occurrence").isEmpty)
        let later = try await harness.call(
            "snooze_todo", ["id": "a", "until": .string("\(weekend.sunday)T07:40")], as: alice)
        #expect(try harness.fields(alice, "a")["snoozedUntil"] == timestamp(weekend.onSunday("07:40")), "\(later)")
    }

    /// Done on a snoozed one-off stops the snoozed alarm too: snoozedUntil leaves the record.
    @Test(arguments: DSTWeekend.all)
    func completingASnoozedOneOffClearsTheSnooze(weekend: DSTWeekend) async throws {
        let harness = try ToolHarness(now: weekend.onSunday("08:00"))
        let alice = try harness.connect()
        try harness.seedAccount(alice, ["timeZone": field(.string(weekend.zone))])
        try harness.seedAppTodo(
            alice, "a", due: weekend.onSunday("07:30"), zone: weekend.zone,
            extra: ["snoozedUntil": timestamp(weekend.onSunday("08:30"))])
        let reply = try await harness.call("complete_todo", ["id": "a"], as: alice)
        #expect(reply.content["todo"]?["snoozedUntil"] == .null, "\(reply)")
        let fields = try harness.fields(alice, "a")
        #expect(fields["status"] == field("done"))
        #expect(fields["snoozedUntil"] == nil)
        #expect(fields["completedAt"] == timestamp(weekend.onSunday("08:00")))
    }
}
