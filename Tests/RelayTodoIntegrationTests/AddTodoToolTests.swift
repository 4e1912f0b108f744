import Foundation
import RelayJSON
import Testing

@Suite struct AddTodoToolTests {
    static let newYork: JSONObject = ["timeZone": field("America/New_York"), "defaultTime": field("08:00")]

    @Test func titleOnlyWritesTheRecordTheAppExpects() async throws {
        let harness = try ToolHarness(now: "2026-03-07T17:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(alice, Self.newYork)
        let reply = try await harness.call("add_todo", ["title": "Buy milk"], as: alice)
        #expect(!reply.isError, "\(reply)")
        let todo = reply.content["todo"] ?? .null
        let id = try #require(todo["id"]?.stringValue)
        #expect(
            id.range(
                of: #"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"#, options: .regularExpression)
                != nil)
        // Tomorrow at the default time, which is already daylight time (the clocks change that night).
        #expect(todo["due"] == "2026-03-08T08:00:00-04:00")
        #expect(reply.content["timeZone"] == "America/New_York")

        let stored = try harness.stored(alice, "Todo")
        #expect(stored.count == 1)
        let record = try #require(stored[id])
        let fields = record["fields"] ?? .null
        #expect(fields["title"] == field("Buy milk"))
        #expect(fields["source"] == field("mcp"))
        #expect(fields["status"] == field("pending"))
        #expect(fields["timeZone"] == field("America/New_York"))
        #expect(fields["sound"] == field("default"))
        #expect(fields["dueAt"] == timestamp("2026-03-08T08:00:00-04:00"))
        #expect(fields["createdAt"] == timestamp("2026-03-07T17:00:00Z"))
        #expect(fields["changedAt"] == timestamp("2026-03-07T17:00:00Z"))
        for absent in ["notes", "repeatRule", "deletedAt", "completedAt", "snoozedUntil"] {
            #expect(fields[absent] == nil, "\(absent)")
        }
    }

    /// Wall-clock input on DST days: a time in the spring gap moves to the first valid minute, an ambiguous one
    /// takes the earlier instant. Each case is (zone, due, saved due with offset).
    @Test(arguments: [
        ("America/New_York", "2026-03-08T02:30", "2026-03-08T03:00:00-04:00"),
        ("America/New_York", "2026-11-01T01:30", "2026-11-01T01:30:00-04:00"),
        ("America/New_York", "2026-11-01T02:30", "2026-11-01T02:30:00-05:00"),
        ("America/New_York", "2026-03-08", "2026-03-08T09:00:00-04:00"),
        ("Europe/London", "2026-03-29T01:30", "2026-03-29T02:00:00+01:00"),
        ("Europe/London", "2026-10-25T01:30", "2026-10-25T01:30:00+01:00"),
        ("Europe/London", "2026-10-25T02:00", "2026-10-25T02:00:00+00:00"),
        ("Europe/London", "2026-03-29T09:59:00+09:00", "2026-03-29T00:59:00+00:00"),
        ("Europe/London", "2026-03-29T10:00:00+09:00", "2026-03-29T02:00:00+01:00"),
        ("Asia/Tokyo", "2026-03-08T02:30", "2026-03-08T02:30:00+09:00"),
        ("Asia/Tokyo", "2026-11-01", "2026-11-01T09:00:00+09:00"),
        ("Asia/Tokyo", "2026-11-01T01:30:00Z", "2026-11-01T10:30:00+09:00"),
    ])
    func dueOnDaylightSavingDays(zone: String, due: String, saved: String) async throws {
        let harness = try ToolHarness(now: "2026-03-01T00:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(alice, ["timeZone": field(.string(zone))])
        let reply = try await harness.call("add_todo", ["title": "Alarm", "due": .string(due)], as: alice)
        #expect(reply.content["todo"]?["due"] == .string(saved), "\(reply)")
        let id = try #require(reply.content["todo"]?["id"]?.stringValue)
        #expect(try harness.stored(alice, "Todo")[id]?["fields"]?["dueAt"] == timestamp(saved))
        #expect(try harness.stored(alice, "Todo")[id]?["fields"]?["timeZone"] == field(.string(zone)))
    }

    /// Quiet hours 22:00–07:00 wrap midnight: a one-off moves to the next end, a repeating to-do to the end on the
    /// same day. (due, repeat?, saved due, whether it was moved)
    @Test(arguments: [
        ("2026-06-10T23:30", false, "2026-06-11T07:00:00+09:00", true),
        ("2026-06-11T05:15", false, "2026-06-11T07:00:00+09:00", true),
        ("2026-06-10T22:00", false, "2026-06-11T07:00:00+09:00", true),
        ("2026-06-11T07:00", false, "2026-06-11T07:00:00+09:00", false),
        ("2026-06-10T21:59", false, "2026-06-10T21:59:00+09:00", false),
        ("2026-06-10T23:30", true, "2026-06-10T07:00:00+09:00", true),
        ("2026-06-11T05:15", true, "2026-06-11T07:00:00+09:00", true),
    ])
    func quietHoursAcrossMidnight(due: String, repeats: Bool, saved: String, moved: Bool) async throws {
        let harness = try ToolHarness(now: "2026-06-01T00:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(
            alice,
            ["timeZone": field("Asia/Tokyo"), "quietHoursStart": field("22:00"), "quietHoursEnd": field("07:00")])
        var arguments: JSONObject = ["title": "Stretch", "due": .string(due)]
        if repeats { arguments["repeat"] = ["kind": "daily"] }
        let reply = try await harness.call("add_todo", .object(arguments), as: alice)
        #expect(reply.content["todo"]?["due"] == .string(saved), "\(reply)")
        let adjusted = reply.content["quietHoursAdjusted"]
        #expect((adjusted != nil) == moved)
        if moved {
            #expect(adjusted?["requested"] == .string(due + ":00+09:00"))
            #expect(adjusted?["actual"] == .string(saved))
            #expect(adjusted?["message"]?.stringValue?.contains("quiet hours (22:00–07:00)") == true)
        }
        let id = try #require(reply.content["todo"]?["id"]?.stringValue)
        #expect(try harness.stored(alice, "Todo")[id]?["fields"]?["dueAt"] == timestamp(saved))
    }

    @Test func everyFieldAndARepeatSpelledOut() async throws {
        let harness = try ToolHarness(now: "2026-03-01T00:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(alice, ["timeZone": field("Asia/Tokyo"), "locale": field("ja_JP")])
        let reply = try await harness.call(
            "add_todo",
            [
                "title": "Gym", "due": "2026-03-09T07:30", "notes": "bring towel", "sound": "marimba",
                "repeat": [
                    "kind": "weekly", "interval": 2, "weekdays": [2, 4], "end": ["kind": "count", "count": 10],
                ],
            ], as: alice)
        let todo = reply.content["todo"] ?? .null
        #expect(
            todo["repeatDescription"]?.stringValue?.hasPrefix("every other week on Monday and Wednesday at 07:30")
                == true, "\(reply)")
        #expect(todo["repeatDescriptionJa"]?.stringValue?.hasPrefix("隔週 月曜日と水曜日 07:30") == true)
        let fields = try harness.stored(alice, "Todo")[todo["id"]?.stringValue ?? ""]?["fields"] ?? .null
        #expect(fields["notes"] == field("bring towel"))
        #expect(fields["sound"] == field("marimba"))
        let rule = try JSONValue(parsing: Array((fields["repeatRule"]?["value"]?.stringValue ?? "").utf8))
        #expect(rule == ["kind": "weekly", "interval": 2, "weekdays": [2, 4], "end": ["kind": "count", "count": 10]])
    }

    @Test func paymentRequiredWhenTrialAndSubscriptionEnded() async throws {
        let harness = try ToolHarness(now: "2026-06-10T00:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(
            alice,
            [
                "trialStartedAt": timestamp("2026-01-01T00:00:00Z"),
                "subscribedUntil": timestamp("2026-06-01T00:00:00Z"), "canAddTodos": field(0, "INT64"),
            ])
        let reply = try await harness.call("add_todo", ["title": "x"], as: alice)
        #expect(reply.isError && reply.errorCode == "PAYMENT_REQUIRED", "\(reply)")
        #expect(try harness.stored(alice, "Todo").isEmpty)
        // The app's hint alone re-opens adding.
        try harness.seedAccount(
            alice, ["trialStartedAt": timestamp("2026-01-01T00:00:00Z"), "canAddTodos": field(1, "INT64")])
        #expect(try await harness.call("add_todo", ["title": "x"], as: alice).isError == false)
    }

    /// Every refusal names its field, and nothing is written. (arguments, field)
    @Test(arguments: [
        (#"{}"#, "title"),
        (#"{"title":""}"#, "title"),
        (#"{"title":"   "}"#, "title"),
        (#"{"title":"\#(String(repeating: "x", count: 201))"}"#, "title"),
        (#"{"title":42}"#, "title"),
        (#"{"title":"x","notes":"\#(String(repeating: "n", count: 4001))"}"#, "notes"),
        (#"{"title":"x","due":"tomorrow 9am"}"#, "due"),
        (#"{"title":"x","due":"2026-02-30"}"#, "due"),
        (#"{"title":"x","due":"2026-03-09T07:30:00"}"#, "due"),
        (#"{"title":"x","sound":"gong"}"#, "sound"),
        (#"{"title":"x","repeat":{"kind":"hourly"}}"#, "repeat.kind"),
        (#"{"title":"x","repeat":{"kind":"daily","interval":100}}"#, "repeat.interval"),
        (#"{"title":"x","repeat":{"kind":"daily","interval":0}}"#, "repeat.interval"),
        (#"{"title":"x","repeat":{"kind":"weekly","weekdays":[8]}}"#, "repeat.weekdays[0]"),
        (#"{"title":"x","repeat":{"kind":"daily","weekdays":[2]}}"#, "repeat.weekdays"),
        (
            #"{"title":"x","repeat":{"kind":"monthly","monthly":{"mode":"weekdayOrdinal","ordinal":6,"weekday":2}}}"#,
            "repeat.monthly.ordinal"
        ),
        (#"{"title":"x","repeat":{"kind":"daily","end":{"kind":"count","count":1000}}}"#, "repeat.end.count"),
        (
            #"{"title":"x","due":"2026-06-10","repeat":{"kind":"daily","end":{"kind":"until","until":"2026-06-09"}}}"#,
            "repeat.end.until"
        ),
        (#"{"title":"x","priority":"high"}"#, "priority"),
    ])
    func invalidArgumentsNameTheField(arguments: String, field: String) async throws {
        let harness = try ToolHarness(now: "2026-06-01T00:00:00Z")
        let alice = try harness.connect()
        let reply = try await harness.call("add_todo", try JSONValue(parsing: Array(arguments.utf8)), as: alice)
        #expect(reply.isError && reply.errorCode == "INVALID_ARGUMENT", "\(reply)")
        #expect(reply.errorField == field, "\(reply)")
        #expect(!reply.text.contains("xxxxxxxxxx") && !reply.text.contains("nnnnnnnnnn"))
        #expect(try harness.stored(alice, "Todo").isEmpty)
    }
}
