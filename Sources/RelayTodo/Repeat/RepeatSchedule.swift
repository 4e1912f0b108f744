/// The days a repeat rule rings on, expanded the way the app expands it (seed, "Repeats are expanded by the
/// app"): the first occurrence is the date of `dueAt` on the to-do's wall clock, and later ones follow the rule.
///
/// - daily: every `interval` days from the start.
/// - weekly: the listed weekdays (empty = the start's weekday) of every `interval`-th week, weeks running Sunday
///   to Saturday (the app numbers days 1 = Sunday … 7 = Saturday) and counted from the start's week.
/// - monthly `dayOfMonth`: the start's day of every `interval`-th month; a month without that day uses its last.
/// - monthly `weekdayOrdinal`: the n-th weekday (or the last); a month without a fifth one is skipped.
/// - yearly: the start's month and day every `interval` years; 29 February is 28 February in other years.
/// - `end.until` keeps dates up to that day; `end.count` keeps the first `count`, counting the start.
///
/// The start is always an occurrence, even when a record the app wrote starts on a day the rule does not
/// list; the relay itself aligns a new first occurrence with `alignedStart(_:)`. Occurrences are limited to
/// years up to 9999 (`LocalDate`'s range).
package struct RepeatSchedule: Sendable, Equatable {
    /// The rule.
    package let rule: RepeatRule
    /// The first occurrence.
    package let start: LocalDate
    /// For `end.count`: every occurrence, ascending (at most 999).
    private let counted: [LocalDate]?

    /// The schedule of `rule` starting on `start`.
    package init(rule: RepeatRule, start: LocalDate) {
        self.rule = rule
        self.start = start
        if case .count(let count) = rule.end {
            var dates: [LocalDate] = []
            var period = 0
            // A rule whose periods are mostly empty (the fifth Monday) still ends: the year limit stops it.
            while dates.count < count, let days = Self.days(rule, start: start, period: period) {
                dates += days.prefix(count - dates.count)
                period += rule.interval
            }
            counted = dates
        } else {
            counted = nil
        }
    }

    /// Whether the rule rings on `date`.
    package func contains(_ date: LocalDate) -> Bool {
        if let counted { return counted.contains(date) }
        guard date >= start, withinEnd(date) else { return false }
        return (Self.days(rule, start: start, period: period(of: date)) ?? []).contains(date)
    }

    /// The first occurrence after `date`, or nil when the repeat has ended by then.
    package func next(after date: LocalDate) -> LocalDate? {
        if let counted { return counted.first { $0 > date } }
        if date < start { return withinEnd(start) ? start : nil }
        var period = period(of: date) - period(of: date) % rule.interval
        // Enough periods to pass any run of months without a fifth weekday; the year limit ends the walk.
        for _ in 0..<600 {
            guard let days = Self.days(rule, start: start, period: period) else { return nil }
            if let found = days.first(where: { $0 > date }) { return withinEnd(found) ? found : nil }
            period += rule.interval
        }
        return nil
    }

    /// The last occurrence before `date`, or nil when there is none (the date is on or before the start).
    package func previous(before date: LocalDate) -> LocalDate? {
        if let counted { return counted.last { $0 < date } }
        var bound = date
        if case .until(let until) = rule.end, until < date { bound = until.adding(days: 1) }
        guard bound > start else { return nil }
        var period = period(of: bound) - period(of: bound) % rule.interval
        while period >= 0 {
            if let found = (Self.days(rule, start: start, period: period) ?? []).last(where: { $0 < bound }) {
                return found
            }
            period -= rule.interval
        }
        return nil
    }

    /// The last occurrence, or nil when the repeat never ends.
    package var last: LocalDate? {
        if let counted { return counted.last }
        guard case .until(let until) = rule.end else { return nil }
        return contains(until) ? until : previous(before: until)
    }

    /// The first day on or after `date` that the rule itself lists (a weekday it names, the n-th weekday of a
    /// month), for a first occurrence the relay writes; `date` itself for rules whose day comes from the start.
    package static func alignedStart(_ rule: RepeatRule, from date: LocalDate) -> LocalDate {
        var candidate = date
        // Every weekly day recurs within a week; an n-th weekday within about 15 months.
        for _ in 0..<500 {
            if listsDay(rule, candidate) { return candidate }
            candidate = candidate.adding(days: 1)
        }
        return date
    }

    /// Whether `date` is a day the rule names on its own (ignoring the start and the interval).
    static func listsDay(_ rule: RepeatRule, _ date: LocalDate) -> Bool {
        switch (rule.kind, rule.monthly) {
        case (.weekly, _): rule.weekdays.isEmpty || rule.weekdays.contains(date.weekday)
        case (.monthly, .weekdayOrdinal(let ordinal, let weekday)):
            nthWeekday(ordinal, weekday, year: date.year, month: date.month) == date
        default: true
        }
    }

    private func withinEnd(_ date: LocalDate) -> Bool {
        if case .until(let until) = rule.end { return date <= until }
        return true
    }

    /// The period (day, week, month or year) `date` falls in, counted from the start's.
    private func period(of date: LocalDate) -> Int {
        switch rule.kind {
        case .daily: date.daysSinceEpoch - start.daysSinceEpoch
        case .weekly: (Self.sunday(of: date).daysSinceEpoch - Self.sunday(of: start).daysSinceEpoch) / 7
        case .monthly: (date.year * 12 + date.month) - (start.year * 12 + start.month)
        case .yearly: date.year - start.year
        }
    }

    /// The occurrences in `period` (ascending; empty when the interval skips it), or nil past year 9999.
    private static func days(_ rule: RepeatRule, start: LocalDate, period: Int) -> [LocalDate]? {
        guard period >= 0, period % rule.interval == 0 else { return [] }
        var days: [LocalDate]
        switch rule.kind {
        case .daily:
            let date = start.adding(days: period)
            guard date.year <= 9999 else { return nil }
            days = [date]
        case .weekly:
            let sunday = sunday(of: start).adding(days: 7 * period)
            guard sunday.year <= 9999 else { return nil }
            let weekdays = rule.weekdays.isEmpty ? [start.weekday] : rule.weekdays
            days = weekdays.map { sunday.adding(days: $0.rawValue - 1) }.filter { $0.year <= 9999 }
        case .monthly:
            let index = start.year * 12 + start.month - 1 + period
            let (year, month) = (index / 12, index % 12 + 1)
            guard year <= 9999 else { return nil }
            switch rule.monthly {
            case .dayOfMonth:
                days = [LocalDate(year: year, month: month, day: min(start.day, daysIn(year, month)))!]
            case .weekdayOrdinal(let ordinal, let weekday):
                days = nthWeekday(ordinal, weekday, year: year, month: month).map { [$0] } ?? []
            }
        case .yearly:
            let year = start.year + period
            guard year <= 9999 else { return nil }
            days = [LocalDate(year: year, month: start.month, day: min(start.day, daysIn(year, start.month)))!]
        }
        guard period == 0 else { return days }
        // The first period starts at the start, which is always an occurrence.
        return [start] + days.filter { $0 > start }
    }

    private static func daysIn(_ year: Int, _ month: Int) -> Int { LocalDate.daysInMonth(year: year, month: month) }

    /// The Sunday on or before `date`.
    static func sunday(of date: LocalDate) -> LocalDate { date.adding(days: 1 - date.weekday.rawValue) }

    /// The `ordinal`-th `weekday` of a month (-1 = the last), or nil when the month has no such day.
    static func nthWeekday(_ ordinal: Int, _ weekday: Weekday, year: Int, month: Int) -> LocalDate? {
        let length = daysIn(year, month)
        if ordinal == -1 {
            let last = LocalDate(year: year, month: month, day: length)!
            return last.adding(days: -((last.weekday.rawValue - weekday.rawValue + 7) % 7))
        }
        let first = LocalDate(year: year, month: month, day: 1)!
        let day = 1 + (weekday.rawValue - first.weekday.rawValue + 7) % 7 + 7 * (ordinal - 1)
        return day <= length ? LocalDate(year: year, month: month, day: day) : nil
    }
}
