import Foundation
import Testing

@testable import RelayTodo

@Suite struct QuietHoursTests {
    let overnight = QuietHours(start: clock("22:00"), end: clock("07:00"))!
    let afternoon = QuietHours(start: clock("13:00"), end: clock("14:30"))!
    let tokyo = TimeRules(zoneName: "Asia/Tokyo")

    @Test func containsHandlesWrapAndEdges() {
        let at = { (text: String) in clock(text).secondsSinceMidnight }
        #expect(overnight.wrapsMidnight)
        #expect(overnight.contains(secondsOfDay: at("22:00")))
        #expect(overnight.contains(secondsOfDay: at("23:59")))
        #expect(overnight.contains(secondsOfDay: at("00:00")))
        #expect(overnight.contains(secondsOfDay: at("06:59")))
        #expect(!overnight.contains(secondsOfDay: at("07:00")))
        #expect(!overnight.contains(secondsOfDay: at("21:59")))
        #expect(!afternoon.wrapsMidnight)
        #expect(afternoon.contains(secondsOfDay: at("13:00")))
        #expect(!afternoon.contains(secondsOfDay: at("14:30")))
        #expect(!afternoon.contains(secondsOfDay: at("12:59")))
        #expect(QuietHours(start: clock("08:00"), end: clock("08:00")) == nil)
    }

    @Test func oneOffBeforeMidnightMovesToTheNextMorning() throws {
        let requested = instant("2026-03-10T23:30:00+09:00")
        let adjusted = try #require(overnight.adjust(requested, repeating: false, rules: tokyo))
        #expect(adjusted.requested == requested)
        #expect(adjusted.actual == instant("2026-03-11T07:00:00+09:00"))
        #expect(adjusted.message.contains("22:00–07:00"))
        #expect(adjusted.message.contains("2026-03-11"))
    }

    @Test func oneOffAfterMidnightMovesToTheSameMorning() throws {
        let adjusted = try #require(
            overnight.adjust(instant("2026-03-11T05:15:00+09:00"), repeating: false, rules: tokyo))
        #expect(adjusted.actual == instant("2026-03-11T07:00:00+09:00"))
    }

    @Test func repeatingMovesToTheEndOnTheSameDay() throws {
        let late = try #require(overnight.adjust(instant("2026-03-10T23:30:00+09:00"), repeating: true, rules: tokyo))
        #expect(late.actual == instant("2026-03-10T07:00:00+09:00"))
        let early = try #require(overnight.adjust(instant("2026-03-11T05:15:00+09:00"), repeating: true, rules: tokyo))
        #expect(early.actual == instant("2026-03-11T07:00:00+09:00"))
    }

    @Test func timesOutsideAreLeftAlone() {
        #expect(overnight.adjust(instant("2026-03-10T07:00:00+09:00"), repeating: false, rules: tokyo) == nil)
        #expect(overnight.adjust(instant("2026-03-10T21:59:59+09:00"), repeating: true, rules: tokyo) == nil)
        #expect(afternoon.adjust(instant("2026-03-10T14:30:00+09:00"), repeating: false, rules: tokyo) == nil)
    }

    @Test func daytimeRangeMovesToItsEnd() throws {
        let adjusted = try #require(
            afternoon.adjust(instant("2026-03-10T13:45:00+09:00"), repeating: false, rules: tokyo))
        #expect(adjusted.actual == instant("2026-03-10T14:30:00+09:00"))
    }

    @Test func endInsideADSTGapMovesToTheFirstValidMinute() throws {
        let rules = TimeRules(zoneName: "America/New_York")
        let quiet = QuietHours(start: clock("23:00"), end: clock("02:30"))!
        let adjusted = try #require(quiet.adjust(instant("2026-03-07T23:30:00-05:00"), repeating: false, rules: rules))
        #expect(adjusted.actual == instant("2026-03-08T03:00:00-04:00"))
    }

    @Test func accountReadsQuietHoursFromTheRecord() {
        #expect(Account(quietHoursStart: "22:00", quietHoursEnd: "07:00").quietHours == overnight)
        #expect(Account(quietHoursStart: "22:00").quietHours == nil)
        #expect(Account(quietHoursStart: "22:00", quietHoursEnd: "7am").quietHours == nil)
        #expect(Account(quietHoursStart: "07:00", quietHoursEnd: "07:00").quietHours == nil)
    }
}
