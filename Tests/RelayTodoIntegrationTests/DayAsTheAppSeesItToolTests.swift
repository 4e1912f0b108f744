import Foundation
import RelayJSON
import Testing

/// Issue 42, Build 3: "next" honours done, skipped and snoozed days; "tomorrow" on a repeat is the app's button;
/// date filters use the moment the alarm rings on the person's clock; days a rule no longer has are not reported.
/// Through the tools against the Apple-strict emulator (index lag on).
@Suite struct DayAsTheAppSeesItToolTests {
    /// A UTC account at 2026-06-10 (Wednesday) 12:00 with a daily 21:00 alarm that started on the 1st.
    func daily() throws -> (ToolHarness, ToolHarness.User) {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(
            alice, "pills", title: "Evening pills", due: "2026-06-01T21:00:00Z", extra: ["repeatRule": dailyRule])
        return (harness, alice)
    }

    func next(_ harness: ToolHarness, _ alice: ToolHarness.User) async throws -> (JSONValue?, String, String) {
        let fetched = try await harness.call("fetch", ["id": "pills"], as: alice)
        let found = try await harness.call("search", ["query": "pills"], as: alice)
        return (
            fetched.content["metadata"]?["nextOccurrence"], fetched.content["text"]?.stringValue ?? "",
            found.content["results"]?.arrayValue?.first?["text"]?.stringValue ?? ""
        )
    }

    @Test func doneTodayMeansNextIsTomorrow() async throws {
        let (harness, alice) = try daily()
        let before = try await next(harness, alice)
        #expect(before.0 == "2026-06-10T21:00:00+00:00")
        _ = try await harness.call("complete_todo", ["id": "pills"], as: alice)
        let after = try await next(harness, alice)
        #expect(after.0 == "2026-06-11T21:00:00+00:00", "\(after)")
        #expect(after.1.contains("Next occurrence: Thursday 2026-06-11 21:00."), "\(after.1)")
        #expect(after.2.contains("next Thursday 2026-06-11 21:00"), "\(after.2)")
    }

    @Test func tomorrowOnARepeatSkipsTodayAndRingsOnce() async throws {
        let (harness, alice) = try daily()
        let reply = try await harness.call("snooze_todo", ["id": "pills", "until": "2026-06-11"], as: alice)
        #expect(!reply.isError, "\(reply)")
        #expect(reply.content["snoozedUntil"] == .null)
        #expect(reply.content["occurrence"]?["state"] == "skipped")
        #expect(reply.content["message"]?.stringValue?.contains("\"tomorrow\"") == true)
        // Nothing is scheduled for tomorrow besides its own alarm: no Occurrence for the 11th.
        let occurrences = try harness.stored(alice, "Occurrence")
        #expect(Set(occurrences.keys) == ["pills|2026-06-10"])
        let after = try await next(harness, alice)
        #expect(after.0 == "2026-06-11T21:00:00+00:00")
        #expect(after.2.contains("next Thursday 2026-06-11 21:00"), "\(after.2)")
    }

    @Test func aSnoozeIsTheNextAlarm() async throws {
        let (harness, alice) = try daily()
        let reply = try await harness.call("snooze_todo", ["id": "pills", "until": "2026-06-10T21:30"], as: alice)
        #expect(reply.content["snoozedUntil"] == "2026-06-10T21:30:00+00:00", "\(reply)")
        let after = try await next(harness, alice)
        #expect(after.0 == "2026-06-10T21:30:00+00:00", "\(after)")
        #expect(after.2.contains("next Wednesday 2026-06-10 21:30"), "\(after.2)")
    }

    /// A New York person, a to-do kept in Tokyo ringing at 08:00 Tokyo (19:00 the day before in New York): its
    /// occurrence dated the 11th in Tokyo is on the 10th of the person's day.
    @Test func anotherZonesOccurrenceIsOnThePersonsDay() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(alice, ["timeZone": field("America/New_York")])
        try harness.seedAppTodo(
            alice, "call", due: "2026-06-01T08:00:00+09:00", zone: "Asia/Tokyo", extra: ["repeatRule": dailyRule])
        try harness.seedOccurrence(alice, "call", "2026-06-11", state: "done")
        let tenth = try await harness.call("list_todos", ["date": "2026-06-10"], as: alice)
        let days = tenth.content["repeating"]?.arrayValue?.first?["occurrences"]?.arrayValue?.map { $0["date"] } ?? []
        #expect(days == ["2026-06-11"], "\(tenth.content)")
        let eleventh = try await harness.call("list_todos", ["date": "2026-06-11"], as: alice)
        #expect(eleventh.content["repeating"]?.arrayValue?.first?["occurrences"] == [], "\(eleventh.content)")
    }

    @Test func daysTheRuleNoLongerHasAreNotReported() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        // Mondays now; a Tuesday was done under the old daily rule.
        let mondays = field(.string(#"{"kind":"weekly","interval":1,"weekdays":[2],"end":{"kind":"never"}}"#))
        try harness.seedAppTodo(alice, "gym", due: "2026-06-01T07:00:00Z", extra: ["repeatRule": mondays])
        try harness.seedOccurrence(alice, "gym", "2026-06-09", state: "done")
        try harness.seedOccurrence(alice, "gym", "2026-06-08", state: "done")
        let list = try await harness.call("list_todos", ["from": "2026-06-08", "to": "2026-06-09"], as: alice)
        let days = list.content["repeating"]?.arrayValue?.first?["occurrences"]?.arrayValue?.map { $0["date"] } ?? []
        #expect(days == ["2026-06-08"], "\(list.content)")
        let fetched = try await harness.call("fetch", ["id": "gym"], as: alice)
        let text = fetched.content["text"]?.stringValue ?? ""
        #expect(!text.contains("2026-06-09") && text.contains("Monday 2026-06-08: done"), "\(text)")
    }

    /// A one-off due on the 10th and snoozed to the 11th rings on the 11th: that is its day.
    @Test func aSnoozedOneOffIsOnTheDayItRings() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(
            alice, "letter", due: "2026-06-10T09:00:00Z", extra: ["snoozedUntil": timestamp("2026-06-11T09:00:00Z")])
        let tenth = try await harness.call("list_todos", ["date": "2026-06-10"], as: alice)
        #expect(tenth.content["items"] == [], "\(tenth.content)")
        let eleventh = try await harness.call("list_todos", ["date": "2026-06-11"], as: alice)
        #expect(eleventh.content["items"]?.arrayValue?.first?["id"] == "letter", "\(eleventh.content)")
    }
}
