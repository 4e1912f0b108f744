import Foundation
import RelayJSON
import Testing

@Suite struct GetMeToolTests {
    @Test func withoutAnAccountRecordTheDefaultsApply() async throws {
        let harness = try ToolHarness(now: "2026-06-10T23:30:00Z")
        let alice = try harness.connect()
        let reply = try await harness.call("get_me", as: alice)
        #expect(reply.status == 200 && !reply.isError, "\(reply)")
        let me = reply.content
        #expect(me["timeZone"] == "UTC")
        #expect(me["defaultTime"] == "09:00")
        #expect(me["quietHours"] == .null)
        #expect(me["canAddTodos"] == true)
        #expect(me["today"] == ["date": "2026-06-10", "weekday": "Wednesday", "weekdayNumber": 4])
        #expect(me["now"] == "2026-06-10T23:30:00+00:00")
        #expect(me["defaultDueNext"] == "2026-06-11T09:00:00+00:00")
        #expect(reply.text == JSONValue.object(me.objectValue ?? [:]).jsonString)
        #expect(harness.toolCalls.map(\.outcome) == ["ok"])
    }

    @Test func theAccountRecordDecidesTodayAndTheHint() async throws {
        let harness = try ToolHarness(now: "2026-06-10T23:30:00Z")
        let alice = try harness.connect()
        try harness.seedAccount(
            alice,
            [
                "timeZone": field("Asia/Tokyo"), "locale": field("ja_JP"), "defaultTime": field("07:30"),
                "quietHoursStart": field("22:00"), "quietHoursEnd": field("06:30"),
                "trialStartedAt": timestamp("2026-01-01T00:00:00Z"), "canAddTodos": field(0, "INT64"),
            ])
        let me = try await harness.call("get_me", as: alice).content
        #expect(me["timeZone"] == "Asia/Tokyo")
        #expect(me["locale"] == "ja_JP")
        #expect(me["quietHours"] == ["start": "22:00", "end": "06:30"])
        #expect(me["today"]?["date"] == "2026-06-11")
        #expect(me["now"] == "2026-06-11T08:30:00+09:00")
        #expect(me["defaultDueNext"] == "2026-06-12T07:30:00+09:00")
        #expect(me["trialStartedAt"] == "2026-01-01T09:00:00+09:00")
        #expect(me["canAddTodos"] == false)
    }

    @Test func argumentsAreRefusedNamingTheField() async throws {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        let reply = try await harness.call("get_me", ["verbose": true], as: alice)
        #expect(reply.isError)
        #expect(reply.errorCode == "INVALID_ARGUMENT")
        #expect(reply.errorField == "verbose")
    }
}
