import Foundation
import Testing

@testable import RelayTodo

@Suite struct LocalDateTests {
    @Test func parsesOnlyStrictDates() {
        #expect(LocalDate("2026-03-08")?.description == "2026-03-08")
        #expect(LocalDate("2024-02-29") != nil)
        for bad in [
            "2026-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-1-08", "26-03-08", "2026/03/08",
            "2026-03-08T09:00", " 2026-03-08", "0000-01-01", "２０２６-03-08", "",
        ] {
            #expect(LocalDate(bad) == nil, "\(bad)")
        }
    }

    @Test func dayNumbersMatchFoundationOverFourHundredYears() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(secondsFromGMT: 0))
        let start = instant("1900-01-01T00:00:00Z")
        for offset in stride(from: 0, to: 146_097 + 800, by: 97) {
            let date = start.addingTimeInterval(TimeInterval(offset) * 86400)
            let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
            let local = LocalDate(daysSinceEpoch: Int((date.timeIntervalSince1970 / 86400).rounded(.down)))
            #expect(local.year == parts.year && local.month == parts.month && local.day == parts.day, "\(local)")
            #expect(local.weekday.rawValue == parts.weekday)
            #expect(LocalDate(daysSinceEpoch: local.daysSinceEpoch) == local)
        }
    }

    @Test func arithmeticAndOrder() {
        #expect(day("2026-02-28").adding(days: 1) == day("2026-03-01"))
        #expect(day("2024-02-28").adding(days: 1) == day("2024-02-29"))
        #expect(day("2026-12-31").adding(days: 1) == day("2027-01-01"))
        #expect(day("2026-01-01").adding(days: -1) == day("2025-12-31"))
        #expect(day("2026-03-08") < day("2026-03-09"))
        #expect(day("2026-03-08").weekday == .sunday)
        #expect(day("2026-11-01").weekday == .sunday)
        #expect(LocalDate(daysSinceEpoch: -1) == day("1969-12-31"))
    }

    @Test func timesOfDay() {
        #expect(LocalTime("07:30")?.minutesSinceMidnight == 450)
        #expect(LocalTime("23:59") != nil)
        #expect(LocalTime("00:00")?.minutesSinceMidnight == 0)
        let bad = [
            "24:00", "7:30", "07:60", "07.30", "0730", "07:30:00", "", "-7:30", "+7:30", "07:3a", "0a:30",
            "07:30 ", " 07:30", "07::0", "\u{FF10}7:30", "07:3\u{0661}", "07:30\0",
        ]
        for text in bad {
            #expect(LocalTime(text) == nil, "\(text)")
        }
    }
}
