/// How a to-do repeats (`repeat` in the tools, the `repeatRule` JSON string in the record). The first
/// occurrence is the to-do's `dueAt`; every occurrence rings at that wall-clock time in the to-do's zone.
/// A rule of kind `none` is not a rule: parsing it yields nil (one-off).
package struct RepeatRule: Sendable, Equatable {
    /// The repeating kinds (`none` only exists in input).
    package enum Kind: String, Sendable, CaseIterable {
        case daily
        case weekly
        case monthly
        case yearly
    }

    /// Which day of the month a monthly rule uses.
    package enum Monthly: Sendable, Equatable {
        /// The day of `dueAt`; months without that day use their last day.
        case dayOfMonth
        /// The `ordinal`-th `weekday` of the month; ordinal 1…5, or -1 for the last.
        case weekdayOrdinal(ordinal: Int, weekday: Weekday)
    }

    /// When the rule stops.
    package enum End: Sendable, Equatable {
        /// Never.
        case never
        /// After the occurrence on this date (inclusive).
        case until(LocalDate)
        /// After this many occurrences, counting the first (1…999).
        case count(Int)
    }

    /// The kind.
    package var kind: Kind
    /// Every `interval` days/weeks/months/years, 1…99.
    package var interval: Int
    /// Weekly only: the days (sorted, no repeats); empty = the weekday of `dueAt`.
    package var weekdays: [Weekday]
    /// Monthly only.
    package var monthly: Monthly
    /// When it stops.
    package var end: End

    /// A rule; the caller guarantees the ranges (use `RepeatRule(json:field:)` for untrusted input).
    package init(
        kind: Kind, interval: Int = 1, weekdays: [Weekday] = [], monthly: Monthly = .dayOfMonth, end: End = .never
    ) {
        self.kind = kind
        self.interval = interval
        self.weekdays = Array(Set(weekdays)).sorted()
        self.monthly = kind == .monthly ? monthly : .dayOfMonth
        self.end = end
    }

    /// The allowed interval.
    package static let intervals = 1...99
    /// The allowed `end.count`.
    package static let counts = 1...999
    /// The allowed monthly ordinals.
    package static let ordinals = [1, 2, 3, 4, 5, -1]
}
