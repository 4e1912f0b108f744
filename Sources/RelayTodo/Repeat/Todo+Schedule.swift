import Foundation

extension Todo {
    /// The repeat's days, starting on the date of `dueAt` on the to-do's wall clock; nil for a one-off or a
    /// repeating record without a due time (then any day is accepted).
    package func schedule(account: Account) -> RepeatSchedule? {
        guard let repeatRule, let dueAt else { return nil }
        return RepeatSchedule(rule: repeatRule, start: rules(account: account).wallClock(at: dueAt).date)
    }

    /// When the occurrence on `date` rings: `dueAt`'s wall-clock time on that day in the to-do's zone (a time the
    /// clocks skip that day moves forward to the first minute that exists; a repeated hour takes the earlier).
    package func alarm(on date: LocalDate, account: Account) -> Date? {
        guard let dueAt else { return nil }
        let rules = rules(account: account)
        let wall = rules.wallClock(at: dueAt)
        if date == wall.date { return dueAt }
        return rules.instant(date: date, time: wall.time).addingTimeInterval(TimeInterval(wall.secondsOfDay % 60))
    }

    /// The occurrence a complete or snooze is for: `requested`, or today in the to-do's zone. `INVALID_ARGUMENT`
    /// on `occurrenceDate` when the repeat does not ring that day, naming the nearest days it does (days only,
    /// never times: error messages carry no to-do content beyond the dates a model needs to retry).
    func occurrenceDay(_ requested: LocalDate?, account: Account, now: Date) throws(TodoError) -> LocalDate {
        let date = requested ?? rules(account: account).today(now: now)
        guard let schedule = schedule(account: account), !schedule.contains(date) else { return date }
        let subject =
            requested == nil
            ? "today (\(date) in \(rules(account: account).zoneName)) is not a day this to-do repeats on; pass "
                + "occurrenceDate."
            : "\(date) is not a day this to-do repeats on."
        var hint: String
        if date < schedule.start {
            hint = "Its first occurrence is \(schedule.start)."
        } else if let last = schedule.last, date > last {
            hint = "Its repeat has ended; the last occurrence is \(last)."
        } else {
            let nearest = [schedule.previous(before: date), schedule.next(after: date)].compactMap { $0 }
            hint = "The nearest occurrences are " + nearest.map(\.description).joined(separator: " and ") + "."
        }
        throw .invalidArgument("occurrenceDate", subject + " " + hint)
    }
}
