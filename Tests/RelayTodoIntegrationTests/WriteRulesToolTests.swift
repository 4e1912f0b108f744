import Foundation
import RelayJSON
import Testing

/// add_todo, update_todo, get_me and list_todos behave as the app does (issue 22), over HTTP against the
/// emulator, checking the stored records.
@Suite struct WriteRulesToolTests {
    /// Bug 2: the device decides with StoreKit and mirrors the verdict; an explicit canAddTodos wins, the
    /// dates decide only without it, and no Account record at all allows.
    @Test(arguments: [
        (#"{"canAddTodos":{"value":0,"type":"INT64"}}"#, false),
        (
            #"{"canAddTodos":{"value":0,"type":"INT64"},"subscribedUntil":{"value":1893456000000,"type":"TIMESTAMP"}}"#,
            false
        ),
        (
            #"{"canAddTodos":{"value":0,"type":"INT64"},"trialStartedAt":{"value":1781049600000,"type":"TIMESTAMP"}}"#,
            false
        ),
        (
            #"{"canAddTodos":{"value":1,"type":"INT64"},"trialStartedAt":{"value":1735689600000,"type":"TIMESTAMP"}}"#,
            true
        ),
        (#"{"trialStartedAt":{"value":1735689600000,"type":"TIMESTAMP"}}"#, false),
        (#"{"trialStartedAt":{"value":1781049600000,"type":"TIMESTAMP"}}"#, true),
        (#"{"timeZone":{"value":"Asia/Tokyo","type":"STRING"}}"#, true),
        ("", true),
    ])
    func theAppsEntitlementVerdictWins(fields: String, allowed: Bool) async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        if !fields.isEmpty {
            try harness.seedAccount(alice, try JSONValue(parsing: Array(fields.utf8)).objectValue ?? [:])
        }
        let me = try await harness.call("get_me", as: alice)
        #expect(me.content["canAddTodos"] == .bool(allowed), "\(me)")
        let added = try await harness.call("add_todo", ["title": "Call"], as: alice)
        #expect(added.errorCode == (allowed ? nil : "PAYMENT_REQUIRED"), "\(added)")
        #expect(try harness.stored(alice, "Todo").count == (allowed ? 1 : 0))
    }

    /// Bug 4: control characters and text-direction overrides never reach the phone's alarm screen; notes keep
    /// their line breaks.
    @Test func controlCharactersAreRefusedAndNothingIsWritten() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAppTodo(alice, "a")
        let before = try harness.stored(alice, "Todo")
        let refused: [(String, JSONValue, String)] = [
            ("add_todo", ["title": "Pay \u{202E}tner"], "title"),
            ("add_todo", ["title": "Pay rent", "notes": "by\u{0}transfer"], "notes"),
            ("add_todo", ["title": "Wake\u{7}up"], "title"),
            ("add_todo", ["title": "Two\nlines"], "title"),
            ("update_todo", ["id": "a", "title": "Call\u{1B}[2J"], "title"),
            ("update_todo", ["id": "a", "notes": "\u{2066}hidden\u{2069}"], "notes"),
        ]
        for (tool, arguments, name) in refused {
            let reply = try await harness.call(tool, arguments, as: alice)
            #expect(reply.errorCode == "INVALID_ARGUMENT" && reply.errorField == name, "\(reply)")
            #expect(reply.text.contains("U+"), "\(reply.text)")
        }
        #expect(try harness.stored(alice, "Todo") == before)
        let kept = try await harness.call("update_todo", ["id": "a", "notes": "line one\nline two\tend"], as: alice)
        #expect(!kept.isError, "\(kept)")
        #expect(try harness.fields(alice, "a")["notes"] == field("line one\nline two\tend"))
    }

    /// get_me's defaultDueNext is what add_todo without due writes, quiet hours included, on DST weekends.
    @Test(arguments: DSTWeekend.all)
    func defaultDueNextIsWhatAddTodoWrites(weekend: DSTWeekend) async throws {
        let harness = try ToolHarness(now: weekend.onSaturday("12:00"))
        let alice = try harness.connect()
        try harness.seedAccount(
            alice,
            [
                "timeZone": field(.string(weekend.zone)), "defaultTime": field("06:00"),
                "quietHoursStart": field("22:00"), "quietHoursEnd": field("07:00"),
            ])
        let me = try await harness.call("get_me", as: alice)
        #expect(me.content["defaultDueNext"] == .string(weekend.onSunday("07:00")), "\(me)")
        let added = try await harness.call("add_todo", ["title": "Water the plants"], as: alice)
        let id = try #require(added.content["todo"]?["id"]?.stringValue)
        #expect(added.content["quietHoursAdjusted"]?["actual"] == .string(weekend.onSunday("07:00")), "\(added)")
        #expect(try harness.fields(alice, id)["dueAt"] == timestamp(weekend.onSunday("07:00")))
    }

    /// Quiet hours ending inside the skipped hour: the alarm is at the first minute that exists, and the
    /// message names that time, not the end that never comes.
    @Test(arguments: [
        ("America/New_York", "2026-03-07T23:30", "02:30", "2026-03-08T03:00:00-04:00", "03:00"),
        ("Europe/London", "2026-03-28T23:30", "01:30", "2026-03-29T02:00:00+01:00", "02:00"),
    ])
    func aQuietHoursEndInTheDSTGap(zone: String, due: String, end: String, actual: String, shown: String)
        async throws
    {
        let harness = try ToolHarness(now: "2026-03-07T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(
            alice,
            ["timeZone": field(.string(zone)), "quietHoursStart": field("23:00"), "quietHoursEnd": field(.string(end))])
        let added = try await harness.call("add_todo", ["title": "x", "due": .string(due)], as: alice)
        let message = added.content["quietHoursAdjusted"]?["message"]?.stringValue ?? ""
        #expect(
            message.contains("moved to \(shown) the next day") && message.contains("\(end) does not exist"), "\(added)")
        #expect(added.content["quietHoursAdjusted"]?["actual"] == .string(actual))
        let id = try #require(added.content["todo"]?["id"]?.stringValue)
        #expect(try harness.fields(alice, id)["dueAt"] == timestamp(actual))
    }

    /// A repeat's first occurrence must be a day it rings on (moved forward, said in dueAligned); a due time
    /// already past is kept with a notice; a done one-off given a repeat is pending again.
    @Test(arguments: DSTWeekend.all)
    func dueTimesAndRepeatsAsTheAppStoresThem(weekend: DSTWeekend) async throws {
        let harness = try ToolHarness(now: weekend.onSaturday("12:00"))
        let alice = try harness.connect()
        try harness.seedAccount(alice, ["timeZone": field(.string(weekend.zone))])
        // Mondays at 07:30, asked for on the Saturday: the first occurrence is the Monday after the DST Sunday.
        let weekly = try await harness.call(
            "add_todo",
            [
                "title": "Gym", "due": .string("\(weekend.saturday)T07:30"),
                "repeat": ["kind": "weekly", "weekdays": [2]],
            ],
            as: alice)
        let aligned = try #require(weekly.content["dueAligned"]?["actual"]?.stringValue, "\(weekly)")
        #expect(aligned.hasPrefix("\(weekend.monday)T07:30:00"), "\(weekly)")
        let weeklyID = try #require(weekly.content["todo"]?["id"]?.stringValue)
        #expect(try harness.fields(alice, weeklyID)["dueAt"]?["value"] == millis(aligned))

        // Saturday 07:00 has passed: saved, with a notice that it will not ring.
        let past = try await harness.call(
            "add_todo", ["title": "Late", "due": .string("\(weekend.saturday)T07:00")], as: alice)
        let notices = past.content["notices"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(notices.count == 1 && notices[0].contains("already past"), "\(past)")
        let pastID = try #require(past.content["todo"]?["id"]?.stringValue)
        #expect(try harness.fields(alice, pastID)["dueAt"] == timestamp(weekend.onSaturday("07:00")))

        // A done one-off made repeating: pending again, completedAt gone, and the user is told.
        try harness.seedAppTodo(
            alice, "done", due: weekend.onSaturday("08:00"), zone: weekend.zone,
            extra: ["status": field("done"), "completedAt": timestamp(weekend.onSaturday("08:05"))])
        let repeated = try await harness.call("update_todo", ["id": "done", "repeat": ["kind": "daily"]], as: alice)
        #expect(
            repeated.content["notices"]?.arrayValue?.first?.stringValue?.contains("It was done") == true, "\(repeated)")
        let fields = try harness.fields(alice, "done")
        #expect(fields["status"] == field("pending"))
        #expect(fields["completedAt"] == nil)
        #expect(fields["repeatRule"] != nil)
    }

    /// Repeat descriptions say what happens on missing days and name the to-do's zone when it is not the
    /// account's.
    @Test func repeatDescriptionsExplainMissingDaysAndForeignZones() async throws {
        let harness = try ToolHarness(now: "2026-03-07T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(alice, ["timeZone": field("Asia/Tokyo"), "locale": field("ja_JP")])
        let fifthMonday =
            #"{"kind":"monthly","interval":1,"weekdays":[],"monthly":{"mode":"weekdayOrdinal","ordinal":5,"weekday":2},"end":{"kind":"never"}}"#
        try harness.seedAppTodo(
            alice, "m", due: "2026-03-30T08:00:00+01:00", zone: "Europe/London",
            extra: ["repeatRule": field(.string(fifthMonday))])
        let leap = #"{"kind":"yearly","interval":1,"weekdays":[],"end":{"kind":"never"}}"#
        try harness.seedAppTodo(
            alice, "y", due: "2028-02-29T09:00:00+09:00", zone: "Asia/Tokyo",
            extra: ["repeatRule": field(.string(leap))])
        let listed = try await harness.call("list_todos", ["status": "all"], as: alice)
        let entries = listed.content["repeating"]?.arrayValue ?? []
        let byID = Dictionary(uniqueKeysWithValues: entries.map { ($0["id"]?.stringValue ?? "", $0) })
        #expect(
            byID["m"]?["repeatDescription"]
                == "on the fifth Monday of every month (skipped in months without a fifth Monday) at 08:00 (Europe/London time)",
            "\(listed)")
        #expect(byID["m"]?["repeatDescriptionJa"] == "毎月 第5月曜日 08:00（Europe/London時間、第5月曜日がない月はなし）")
        #expect(byID["y"]?["repeatDescription"] == "every year on February 29 (February 28 in other years) at 09:00")
    }

    /// A cursor sent with other filters is refused, not answered with an empty page.
    @Test func aCursorWithOtherFiltersIsRefused() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        let records: [JSONValue] = (0..<201).map { index in
            [
                "recordName": .string(String(format: "t%03d", index)), "recordType": "Todo",
                "fields": [
                    "title": field("Item"), "dueAt": timestamp("2026-06-11T09:00:00Z"), "status": field("pending"),
                    "timeZone": field("UTC"), "source": field("app"),
                ],
            ]
        }
        try harness.emulator.seed(alice.appleID, records: records)
        let first = try await harness.call("list_todos", ["status": "all"], as: alice)
        let cursor = try #require(first.content["nextCursor"], "\(first.content["items"]?.arrayValue?.count ?? 0)")
        let other = try await harness.call("list_todos", ["status": "done", "cursor": cursor], as: alice)
        #expect(other.errorCode == "INVALID_ARGUMENT" && other.errorField == "cursor", "\(other)")
        let same = try await harness.call("list_todos", ["status": "all", "cursor": cursor], as: alice)
        #expect(same.content["items"]?.arrayValue?.count == 1, "\(same)")
    }

    /// Settings the device wrote badly are reported in get_me instead of silently replaced.
    @Test func badlyWrittenAccountDataIsReported() async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(alice, ["timeZone": field("Mars/Olympus"), "defaultTime": field("25:99")])
        let me = try await harness.call("get_me", as: alice)
        #expect(me.content["timeZone"] == "UTC" && me.content["defaultTime"] == "09:00", "\(me)")
        let warnings = me.content["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(warnings.count == 2 && warnings[0].contains("Mars/Olympus") && warnings[1].contains("25:99"), "\(me)")
        // A field of another type makes the whole record unreadable: the defaults, and a warning saying so.
        // Lenient schema: Apple (and the strict emulator) refuse such a write; the relay must cope with one anyway
        // (a record schema configured with other field names could meet one).
        let other = try ToolHarness(now: "2026-06-10T12:00:00Z", lenientSchema: true)
        let bob = try other.connect("bob@example.com")
        try other.seedAccount(bob, ["timeZone": field(9, "INT64")])
        let broken = try await other.call("get_me", as: bob)
        let brokenWarnings = broken.content["warnings"]?.arrayValue ?? []
        #expect(brokenWarnings.first?.stringValue?.contains("could not be read") == true, "\(broken)")
    }
}
