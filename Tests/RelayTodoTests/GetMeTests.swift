import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct GetMeTests {
    @Test func reportsTheAccountAndTodayInItsZone() throws {
        let account = Account(
            locale: "ja_JP", timeZone: "Asia/Tokyo", defaultTime: "07:15", quietHoursStart: "22:00",
            quietHoursEnd: "06:30", trialStartedAt: instant("2026-03-01T00:00:00Z"), canAddTodos: 1)
        let result = GetMe.result(account: account, now: instant("2026-03-08T15:30:00Z"))
        #expect(
            result
                == [
                    "timeZone": "Asia/Tokyo", "locale": "ja_JP", "defaultTime": "07:15",
                    "quietHours": ["start": "22:00", "end": "06:30"],
                    "trialStartedAt": "2026-03-01T09:00:00+09:00", "subscribedUntil": nil, "canAddTodos": true,
                    "today": ["date": "2026-03-09", "weekday": "Monday", "weekdayNumber": 2],
                    "now": "2026-03-09T00:30:00+09:00", "defaultDueNext": "2026-03-10T07:15:00+09:00",
                    "warnings": [],
                ])
    }

    @Test func aMissingAccountMeansDefaults() {
        let result = GetMe.result(account: .defaults, now: instant("2026-03-08T15:30:00Z"))
        #expect(result["timeZone"] == "UTC")
        #expect(result["locale"] == .null)
        #expect(result["quietHours"] == .null)
        #expect(result["canAddTodos"] == true)
        #expect(result["today"]?["weekday"] == "Sunday")
        #expect(result["defaultDueNext"] == "2026-03-09T09:00:00+00:00")
        #expect(result["warnings"] == [])
    }

    @Test func newYorkOnTheDayTheClocksGoForward() {
        let result = GetMe.result(account: Account(timeZone: "America/New_York"), now: instant("2026-03-08T12:00:00Z"))
        #expect(result["now"] == "2026-03-08T08:00:00-04:00")
        #expect(result["defaultDueNext"] == "2026-03-09T09:00:00-04:00")
    }

    /// What the device wrote badly is reported, not silently replaced: the defaults apply and `warnings` says
    /// which and why (without echoing control characters or long strings).
    @Test func badlyWrittenSettingsAreReportedAsWarnings() throws {
        let account = Account(
            timeZone: "Mars/Olympus", defaultTime: "25:99", quietHoursStart: "22:00", quietHoursEnd: "7am")
        let result = GetMe.result(account: account, now: instant("2026-03-08T15:30:00Z"))
        #expect(result["timeZone"] == "UTC" && result["defaultTime"] == "09:00" && result["quietHours"] == .null)
        let warnings = (result["warnings"]?.arrayValue ?? []).compactMap { $0.stringValue }
        #expect(warnings.count == 3, "\(warnings)")
        #expect(warnings[0].contains("\"Mars/Olympus\"") && warnings[0].contains("UTC"))
        #expect(warnings[1].contains("\"25:99\"") && warnings[1].contains("09:00"))
        #expect(warnings[2].contains("\"7am\""))
        let noisy = Account(timeZone: "Bad\u{7}\u{202E}Zone", quietHoursEnd: "06:00")
        #expect(noisy.warnings.count == 2)
        #expect(noisy.warnings[0].contains("an unreadable value") && !noisy.warnings[0].contains("\u{7}"))
        #expect(noisy.warnings[1].contains("start missing"))
        // Unset fields, or quiet hours with equal ends (the app's way of turning them off), are not warnings.
        #expect(Account(timeZone: "", defaultTime: "").warnings.isEmpty)
        #expect(Account(quietHoursStart: "07:00", quietHoursEnd: "07:00").warnings.isEmpty)
    }

    @Test func takesNoArguments() throws {
        try GetMe.parse(nil)
        try GetMe.parse(json("{}"))
        expectInvalid("verbose") { () throws(TodoError) in try GetMe.parse(json(#"{"verbose":true}"#)) }
        expectInvalid(nil) { () throws(TodoError) in try GetMe.parse(json("[]")) }
    }
}
