/// How a to-do repeats (`repeat` in the tools, the `repeatRule` JSON string in the record). The first
/// occurrence is the to-do's `dueAt`; every occurrence rings at that wall-clock time in the to-do's zone.
/// A rule of kind `none` is not a rule: parsing it yields nil (one-off).
public struct RepeatRule: Sendable, Equatable {
    /// The repeating kinds (`none` only exists in input).
    public enum Kind: String, Sendable, CaseIterable {
        case daily
        case weekly
        case monthly
        case yearly
    }

    /// Which day of the month a monthly rule uses.
    public enum Monthly: Sendable, Equatable {
        /// The day of `dueAt`; months without that day use their last day.
        case dayOfMonth
        /// The `ordinal`-th `weekday` of the month; ordinal 1…5, or -1 for the last.
        case weekdayOrdinal(ordinal: Int, weekday: Weekday)
    }

    /// When the rule stops.
    public enum End: Sendable, Equatable {
        /// Never.
        case never
        /// After the occurrence on this date (inclusive).
        case until(LocalDate)
        /// After this many occurrences, counting the first (1…999).
        case count(Int)
    }

    /// The kind.
    public var kind: Kind
    /// Every `interval` days/weeks/months/years, 1…99.
    public var interval: Int
    /// Weekly only: the days (sorted, no repeats); empty = the weekday of `dueAt`.
    public var weekdays: [Weekday]
    /// Monthly only.
    public var monthly: Monthly
    /// When it stops.
    public var end: End

    /// A rule; the caller guarantees the ranges (use `RepeatRule(json:field:)` for untrusted input).
    public init(
        kind: Kind, interval: Int = 1, weekdays: [Weekday] = [], monthly: Monthly = .dayOfMonth, end: End = .never
    ) {
        self.kind = kind
        self.interval = interval
        self.weekdays = Array(Set(weekdays)).sorted()
        self.monthly = kind == .monthly ? monthly : .dayOfMonth
        self.end = end
    }

    /// The allowed interval.
    public static let intervals = 1...99
    /// The allowed `end.count`.
    public static let counts = 1...999
    /// The allowed monthly ordinals.
    public static let ordinals = [1, 2, 3, 4, 5, -1]
}
