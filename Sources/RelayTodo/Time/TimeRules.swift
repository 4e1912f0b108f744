import Foundation

/// The clock rules of one Account: its time zone and default alarm time. Converts between instants and
/// wall-clock readings with the tools' DST rules (docs/tools.md, "Time rules"): a wall time that does not exist (spring-forward
/// gap) becomes the first minute that does; an ambiguous one (fall-back overlap) takes the earlier instant.
///
/// Only `TimeZone.secondsFromGMT(for:)` and `nextDaylightSavingTimeTransition(after:)` are used from
/// Foundation; calendar arithmetic is done on `LocalDate`, because `Calendar.date(from:)` shifts a gap time
/// by the gap's length (02:30 → 03:30) instead of to the first valid minute (03:00).
package struct TimeRules: Sendable, Equatable {
    /// The zone used for conversions.
    package let zone: TimeZone
    /// The IANA name as the Account spells it (Foundation reports `UTC` as `GMT` on Linux).
    package let zoneName: String
    /// The time used when an input is a bare date, and for `defaultDueNext`.
    package let defaultTime: LocalTime

    /// Rules for an IANA zone name; an unset or unknown name means `UTC`.
    package init(zoneName: String?, defaultTime: LocalTime = .nine) {
        if let zoneName, let zone = TimeZone(identifier: zoneName) {
            self.zone = zone
            self.zoneName = zoneName
        } else {
            self.zone = TimeZone(secondsFromGMT: 0)!
            self.zoneName = "UTC"
        }
        self.defaultTime = defaultTime
    }

    /// UTC with 09:00 as the default time: the rules of a missing Account record.
    package static let utc = TimeRules(zoneName: nil)

    /// The zone's offset from UTC in seconds at `instant`.
    package func offset(at instant: Date) -> Int { zone.secondsFromGMT(for: instant) }

    /// The wall-clock reading at `instant` (fractions of a second dropped).
    package func wallClock(at instant: Date) -> LocalDateTime {
        let local = Int(instant.timeIntervalSince1970.rounded(.down)) + offset(at: instant)
        let days = local >= 0 ? local / 86400 : (local - 86399) / 86400
        return LocalDateTime(date: LocalDate(daysSinceEpoch: days), secondsOfDay: local - days * 86400)
    }

    /// The date at `now` in this zone.
    package func today(now: Date) -> LocalDate { wallClock(at: now).date }

    /// The instant when the wall clock in this zone shows `time` on `date`, with the gap and overlap rules.
    package func instant(date: LocalDate, time: LocalTime) -> Date {
        let wall = date.daysSinceEpoch * 86400 + time.secondsSinceMidnight
        // Offsets in force around this wall time; a transition is never closer than a day to another.
        // At most four distinct offsets.
        var offsets: [Int] = []
        offsets.reserveCapacity(4)
        func note(_ value: Int) { if !offsets.contains(value) { offsets.append(value) } }
        note(offset(atSeconds: wall - 86400))
        note(offset(atSeconds: wall + 86400))
        // By index over the two found so far: iterating the array while appending would copy it.
        for index in 0..<offsets.count { note(offset(atSeconds: wall - offsets[index])) }
        var earliest: Int?
        for candidate in offsets where wall - candidate + offset(atSeconds: wall - candidate) == wall {
            earliest = min(earliest ?? wall - candidate, wall - candidate)
        }
        if let earliest { return Date(timeIntervalSince1970: TimeInterval(earliest)) }
        return firstInstant(afterGapAt: wall, largestOffset: offsets.max() ?? 0)
    }

    /// The wall time `wall` is in a gap: the first existing minute after it is the transition instant.
    private func firstInstant(afterGapAt wall: Int, largestOffset: Int) -> Date {
        let searchStart = Date(timeIntervalSince1970: TimeInterval(wall - largestOffset - 1))
        if let transition = zone.nextDaylightSavingTimeTransition(after: searchStart),
            transition.timeIntervalSince1970 <= TimeInterval(wall - offset(atSeconds: wall - 86400))
        {
            return transition
        }
        // Foundation found no transition: walk forward minute by minute (at most two days).
        var minute = wall + 60
        while minute < wall + 2 * 86400 {
            for candidate in Set([offset(atSeconds: minute - 86400), offset(atSeconds: minute + 86400)])
            where minute - candidate + offset(atSeconds: minute - candidate) == minute {
                return Date(timeIntervalSince1970: TimeInterval(minute - candidate))
            }
            minute += 60
        }
        return Date(timeIntervalSince1970: TimeInterval(wall - largestOffset))
    }

    private func offset(atSeconds seconds: Int) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// The instant a time input means in this zone.
    package func resolve(_ input: TimeInput) -> Date {
        switch input {
        case .instant(let instant): instant
        case .wallClock(let date, let time): instant(date: date, time: time)
        case .date(let date): instant(date: date, time: defaultTime)
        }
    }

    /// Tomorrow at the default time: the due time of an `add_todo` without `due`.
    package func defaultDueNext(now: Date) -> Date { instant(date: today(now: now).adding(days: 1), time: defaultTime) }
}
