import Foundation
import Testing

@testable import RelayTodo

@Suite struct TimeRulesTests {
    let newYork = TimeRules(zoneName: "America/New_York")
    let london = TimeRules(zoneName: "Europe/London")
    let tokyo = TimeRules(zoneName: "Asia/Tokyo")

    /// `TimeText.Buffer` holds 64 bytes inline and the rest in an array: strings at, under and past
    /// that read back whole and in order.
    @Test func timeTextBuffersKeepEveryByteInOrder() {
        for count in [0, 1, 25, 63, 64, 65, 200] {
            let expected = String((0..<count).map { Character(UnicodeScalar(UInt8(48 + $0 % 10))) })
            let written = TimeText.string { output in
                for (index, byte) in expected.utf8.enumerated() {
                    if index % 2 == 0 { output.append(byte) } else { output.append(contentsOf: [byte]) }
                }
            }
            #expect(written == expected, "\(count) bytes")
        }
        #expect(TimeText.string { TimeText.append(7, width: 3, to: &$0) } == "007")
    }

    @Test func newYorkSpringGapMovesToTheFirstValidMinute() {
        // 02:00–02:59 do not exist on 2026-03-08; 03:00 EDT (07:00Z) is the first minute that does.
        #expect(newYork.instant(date: day("2026-03-08"), time: clock("02:00")) == instant("2026-03-08T07:00:00Z"))
        #expect(newYork.instant(date: day("2026-03-08"), time: clock("02:30")) == instant("2026-03-08T07:00:00Z"))
        #expect(newYork.instant(date: day("2026-03-08"), time: clock("02:59")) == instant("2026-03-08T07:00:00Z"))
        #expect(newYork.instant(date: day("2026-03-08"), time: clock("01:59")) == instant("2026-03-08T06:59:00Z"))
        #expect(newYork.instant(date: day("2026-03-08"), time: clock("03:00")) == instant("2026-03-08T07:00:00Z"))
        #expect(newYork.instant(date: day("2026-03-08"), time: clock("03:01")) == instant("2026-03-08T07:01:00Z"))
    }

    @Test func newYorkFallOverlapTakesTheEarlierInstant() {
        // 01:00–01:59 happen twice on 2026-11-01: first EDT (-4), then EST (-5).
        #expect(newYork.instant(date: day("2026-11-01"), time: clock("01:00")) == instant("2026-11-01T05:00:00Z"))
        #expect(newYork.instant(date: day("2026-11-01"), time: clock("01:30")) == instant("2026-11-01T05:30:00Z"))
        #expect(newYork.instant(date: day("2026-11-01"), time: clock("00:59")) == instant("2026-11-01T04:59:00Z"))
        #expect(newYork.instant(date: day("2026-11-01"), time: clock("02:00")) == instant("2026-11-01T07:00:00Z"))
    }

    @Test func londonGapAndOverlap() {
        // 2026-03-29 01:00 GMT → 02:00 BST; 2026-10-25 02:00 BST → 01:00 GMT.
        #expect(london.instant(date: day("2026-03-29"), time: clock("01:30")) == instant("2026-03-29T01:00:00Z"))
        #expect(london.instant(date: day("2026-03-29"), time: clock("00:59")) == instant("2026-03-29T00:59:00Z"))
        #expect(london.instant(date: day("2026-03-29"), time: clock("02:00")) == instant("2026-03-29T01:00:00Z"))
        #expect(london.instant(date: day("2026-10-25"), time: clock("01:30")) == instant("2026-10-25T00:30:00Z"))
        #expect(london.instant(date: day("2026-10-25"), time: clock("02:00")) == instant("2026-10-25T02:00:00Z"))
        #expect(london.instant(date: day("2026-07-01"), time: clock("09:00")) == instant("2026-07-01T08:00:00Z"))
    }

    @Test func tokyoIsPlain() {
        #expect(tokyo.instant(date: day("2026-03-08"), time: clock("02:30")) == instant("2026-03-07T17:30:00Z"))
        #expect(tokyo.format(instant("2026-03-07T17:30:00Z")) == "2026-03-08T02:30:00+09:00")
        #expect(tokyo.today(now: instant("2026-03-07T15:00:00Z")) == day("2026-03-08"))
        #expect(tokyo.today(now: instant("2026-03-07T14:59:59Z")) == day("2026-03-07"))
    }

    @Test func samoaSkippedDayMovesToTheNextExistingMinute() {
        let apia = TimeRules(zoneName: "Pacific/Apia")
        #expect(apia.instant(date: day("2011-12-30"), time: clock("09:00")) == instant("2011-12-30T10:00:00Z"))
        #expect(apia.format(instant("2011-12-30T10:00:00Z")) == "2011-12-31T00:00:00+14:00")
    }

    @Test func everyWallMinuteOfTransitionDaysRoundTripsOrMovesForward() {
        for (rules, date) in [
            (newYork, "2026-03-08"), (newYork, "2026-11-01"), (london, "2026-03-29"), (london, "2026-10-25"),
        ] {
            var previous = Date.distantPast
            for minute in 0..<(24 * 60) {
                let time = LocalTime(hour: minute / 60, minute: minute % 60)!
                let moment = rules.instant(date: day(date), time: time)
                let wall = rules.wallClock(at: moment)
                // Either the wall clock reads back exactly, or (gap) the instant is later and on the same day.
                #expect(wall.date == day(date))
                #expect(wall.time == time || wall.time > time, "\(date) \(time) → \(wall)")
                #expect(moment >= previous, "\(date) \(time) must not go back in time")
                previous = moment
            }
        }
    }

    @Test func formatUsesTheOffsetInForceAtThatInstant() {
        #expect(newYork.format(instant("2026-03-08T06:59:00Z")) == "2026-03-08T01:59:00-05:00")
        #expect(newYork.format(instant("2026-03-08T07:00:00Z")) == "2026-03-08T03:00:00-04:00")
        #expect(newYork.format(instant("2026-11-01T05:30:00Z")) == "2026-11-01T01:30:00-04:00")
        #expect(newYork.format(instant("2026-11-01T06:30:00Z")) == "2026-11-01T01:30:00-05:00")
        #expect(TimeRules.utc.format(instant("2026-06-01T09:00:00Z")) == "2026-06-01T09:00:00+00:00")
        #expect(
            TimeRules(zoneName: "Asia/Kolkata").format(instant("2026-06-01T00:00:00Z")) == "2026-06-01T05:30:00+05:30")
        #expect(TimeRules.utc.format(instant("1969-12-31T23:59:59Z")) == "1969-12-31T23:59:59+00:00")
    }

    @Test func zoneNamesAndDefaults() {
        #expect(TimeRules(zoneName: "UTC").zoneName == "UTC")
        #expect(TimeRules(zoneName: "Mars/Olympus").zoneName == "UTC")
        #expect(TimeRules(zoneName: nil).defaultTime == clock("09:00"))
        #expect(newYork.zoneName == "America/New_York")
    }

    @Test func defaultDueNextIsTomorrowAtTheDefaultTimeEvenAcrossDST() {
        let rules = TimeRules(zoneName: "America/New_York", defaultTime: clock("02:30"))
        // Saturday evening before the spring gap: tomorrow 02:30 does not exist → 03:00 EDT.
        #expect(rules.defaultDueNext(now: instant("2026-03-07T23:00:00-05:00")) == instant("2026-03-08T03:00:00-04:00"))
        #expect(tokyo.defaultDueNext(now: instant("2026-03-07T16:00:00Z")) == instant("2026-03-09T09:00:00+09:00"))
        #expect(TimeRules.utc.defaultDueNext(now: instant("2026-12-31T23:59:00Z")) == instant("2027-01-01T09:00:00Z"))
    }

    @Test func resolvesEachInputForm() {
        #expect(newYork.resolve(.date(day("2026-03-08"))) == instant("2026-03-08T09:00:00-04:00"))
        #expect(newYork.resolve(.wallClock(day("2026-01-15"), clock("07:30"))) == instant("2026-01-15T12:30:00Z"))
        #expect(newYork.resolve(.instant(instant("2026-01-15T12:30:00Z"))) == instant("2026-01-15T12:30:00Z"))
    }
}
