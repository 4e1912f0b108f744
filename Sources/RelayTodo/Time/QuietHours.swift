import Foundation

/// The Account's quiet hours: no alarm rings from `start` (inclusive) to `end` (exclusive), wall clock in the
/// Account zone. When `start` is after `end` the range wraps midnight (22:00–07:00).
package struct QuietHours: Sendable, Equatable {
    /// The first quiet minute.
    package let start: LocalTime
    /// The first minute after the quiet hours.
    package let end: LocalTime

    /// Quiet hours, or nil when `start == end` (an empty range: quiet hours off).
    package init?(start: LocalTime, end: LocalTime) {
        guard start != end else { return nil }
        self.start = start
        self.end = end
    }

    /// Whether the range runs past midnight.
    package var wrapsMidnight: Bool { start > end }

    /// Whether a wall-clock time (seconds since midnight) is quiet.
    package func contains(secondsOfDay seconds: Int) -> Bool {
        let from = start.secondsSinceMidnight
        let to = end.secondsSinceMidnight
        return wrapsMidnight ? seconds >= from || seconds < to : seconds >= from && seconds < to
    }

    /// Moves `requested` out of the quiet hours, or nil when it is not inside them.
    ///
    /// A one-off moves to the next end of the quiet hours (23:30 in 22:00–07:00 → 07:00 the next day).
    /// A repeating item moves to the end on the same day (its daily time becomes the end time). When the end
    /// does not exist that day (the clocks go forward over it) the alarm is at the first minute that does, and
    /// the message names that time.
    package func adjust(_ requested: Date, repeating: Bool, rules: TimeRules) -> QuietHoursAdjustment? {
        let wall = rules.wallClock(at: requested)
        guard contains(secondsOfDay: wall.secondsOfDay) else { return nil }
        let nextDay = !repeating && wrapsMidnight && wall.secondsOfDay >= start.secondsSinceMidnight
        let date = nextDay ? wall.date.adding(days: 1) : wall.date
        let actual = rules.instant(date: date, time: end)
        let used = rules.wallClock(at: actual)
        let when = date == wall.date ? "the same day" : "the next day"
        var message =
            "\(wall.time) is inside the user's quiet hours (\(start)–\(end)), so the alarm was moved to "
            + "\(used.time) \(when) (\(used.date))"
        if used.time != end {
            message += ": \(end) does not exist that day in \(rules.zoneName) because the clocks go forward"
        }
        return QuietHoursAdjustment(requested: requested, actual: actual, message: message + ".")
    }
}

/// A time moved out of quiet hours: `quietHoursAdjusted` in a tool result.
package struct QuietHoursAdjustment: Sendable, Equatable {
    /// What the call asked for.
    package let requested: Date
    /// What was saved.
    package let actual: Date
    /// One line to pass on to the user.
    package let message: String

    /// An adjustment with every part given.
    package init(requested: Date, actual: Date, message: String) {
        self.requested = requested
        self.actual = actual
        self.message = message
    }
}
