import Foundation
import Testing

/// What TimeRules relies on from Foundation on Linux (tzdata in /usr/share/zoneinfo). If one of these breaks
/// after a toolchain or tzdata change, the DST rules need another look.
@Suite struct FoundationAssumptionTests {
    @Test func newYorkOffsetsAroundTheTransitions() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        // 2026-03-08 02:00 EST → 03:00 EDT at 07:00Z; 2026-11-01 02:00 EDT → 01:00 EST at 06:00Z.
        #expect(zone.secondsFromGMT(for: instant("2026-03-08T06:59:59Z")) == -5 * 3600)
        #expect(zone.secondsFromGMT(for: instant("2026-03-08T07:00:00Z")) == -4 * 3600)
        #expect(zone.secondsFromGMT(for: instant("2026-11-01T05:59:59Z")) == -4 * 3600)
        #expect(zone.secondsFromGMT(for: instant("2026-11-01T06:00:00Z")) == -5 * 3600)
        #expect(
            zone.nextDaylightSavingTimeTransition(after: instant("2026-03-01T00:00:00Z"))
                == instant("2026-03-08T07:00:00Z"))
        #expect(
            zone.nextDaylightSavingTimeTransition(after: instant("2026-10-01T00:00:00Z"))
                == instant("2026-11-01T06:00:00Z"))
    }

    @Test func londonTransitionsAtOneUTC() throws {
        let zone = try #require(TimeZone(identifier: "Europe/London"))
        #expect(
            zone.nextDaylightSavingTimeTransition(after: instant("2026-03-01T00:00:00Z"))
                == instant("2026-03-29T01:00:00Z"))
        #expect(
            zone.nextDaylightSavingTimeTransition(after: instant("2026-10-01T00:00:00Z"))
                == instant("2026-10-25T01:00:00Z"))
        #expect(zone.secondsFromGMT(for: instant("2026-07-01T00:00:00Z")) == 3600)
    }

    @Test func tokyoHasNoTransitions() throws {
        let zone = try #require(TimeZone(identifier: "Asia/Tokyo"))
        #expect(zone.secondsFromGMT(for: instant("2026-01-01T00:00:00Z")) == 9 * 3600)
        #expect(zone.secondsFromGMT(for: instant("2026-07-01T00:00:00Z")) == 9 * 3600)
        #expect(zone.nextDaylightSavingTimeTransition(after: instant("2026-01-01T00:00:00Z")) == nil)
    }

    @Test func nonDaylightOffsetChangesCountAsTransitions() throws {
        // Samoa skipped 2011-12-30 entirely (UTC-10 → UTC+14); the gap rule depends on seeing it.
        let zone = try #require(TimeZone(identifier: "Pacific/Apia"))
        #expect(
            zone.nextDaylightSavingTimeTransition(after: instant("2011-12-25T00:00:00Z"))
                == instant("2011-12-30T10:00:00Z"))
    }

    @Test func utcIsReportedAsGMTAndUnknownNamesAreNil() {
        // Why TimeRules keeps the Account's own spelling of the zone name.
        #expect(TimeZone(identifier: "UTC")?.identifier == "GMT")
        #expect(TimeZone(identifier: "Nowhere/Nothing") == nil)
        #expect(TimeZone(identifier: "utc") == nil)
    }

    @Test func calendarShiftsGapTimesByTheGapLength() throws {
        // Why TimeRules does not use Calendar.date(from:): it maps 02:30 to 03:30 EDT, not to 03:00.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "America/New_York"))
        let gap = calendar.date(from: DateComponents(year: 2026, month: 3, day: 8, hour: 2, minute: 30))
        #expect(gap == instant("2026-03-08T07:30:00Z"))
    }
}
