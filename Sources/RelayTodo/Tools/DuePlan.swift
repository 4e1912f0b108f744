import Foundation

/// How a requested due time becomes the one written, for `add_todo` and `update_todo`, in this order:
/// 1. the input is read on the zone's wall clock; a time the clocks skip that day moves to the first minute that
///    exists, and a notice names the time used;
/// 2. a time inside quiet hours moves to their end (a one-off to the next end, a repeating to-do to the end on
///    the same day: `QuietHours.adjust`);
/// 3. a repeating to-do's first occurrence moves forward to the first day its rule lists (a weekday it names,
///    the n-th weekday of a month), keeping the time of day: the first occurrence is `due`, so it must be a day
///    the repeat rings on (`dueAligned`).
struct DuePlan: Equatable {
    /// What to write.
    var due: Date
    /// Set when step 2 moved it.
    var quietHoursAdjusted: QuietHoursAdjustment?
    /// Set when step 3 moved it.
    var dueAligned: QuietHoursAdjustment?
    /// One line each for the user: the DST notice of step 1.
    var notices: [String] = []

    /// The plan for `input` (nil: tomorrow at the default time) read with `rules`, for a to-do repeating by
    /// `rule` (nil: one-off).
    init(_ input: TimeInput?, rule: RepeatRule?, rules: TimeRules, quietHours: QuietHours?, now: Date) {
        let requested = input.map(rules.resolve) ?? rules.defaultDueNext(now: now)
        due = requested
        let wanted: (LocalDate, LocalTime)? =
            switch input {
            case .wallClock(let date, let time)?: (date, time)
            case .date(let date)?: (date, rules.defaultTime)
            case nil: (rules.today(now: now).adding(days: 1), rules.defaultTime)
            case .instant?: nil
            }
        if let (date, time) = wanted, rules.wallClock(at: requested).time != time {
            notices.append(
                "\(time) does not exist on \(date) in \(rules.zoneName) (the clocks go forward), so the alarm is at "
                    + "\(rules.wallClock(at: requested).time).")
        }
        quietHoursAdjusted = quietHours?.adjust(requested, repeating: rule != nil, rules: rules)
        due = quietHoursAdjusted?.actual ?? requested
        if let rule { align(rule, rules: rules) }
    }

    /// Step 3 alone, for an `update_todo` that changes only the rule: the stored due on its own wall clock.
    init(aligning due: Date, to rule: RepeatRule, rules: TimeRules) {
        self.due = due
        align(rule, rules: rules)
    }

    private mutating func align(_ rule: RepeatRule, rules: TimeRules) {
        let wall = rules.wallClock(at: due)
        let first = RepeatSchedule.alignedStart(rule, from: wall.date)
        guard first != wall.date else { return }
        let moved = rules.instant(date: first, time: wall.time).addingTimeInterval(TimeInterval(wall.secondsOfDay % 60))
        let message =
            "\(wall.date) (\(wall.date.weekday.englishName)) is not a day this repeat rings on, so its first "
            + "occurrence is the next one that is: \(first) (\(first.weekday.englishName)) at "
            + "\(rules.wallClock(at: moved).time)."
        dueAligned = QuietHoursAdjustment(requested: due, actual: moved, message: message)
        due = moved
    }
}

extension Account {
    /// When `add_todo` without `due` rings a one-off, and `get_me.defaultDueNext`: tomorrow at the default time,
    /// moved out of quiet hours.
    package func defaultDue(now: Date) -> Date {
        DuePlan(nil, rule: nil, rules: rules, quietHours: quietHours, now: now).due
    }
}

extension Todo {
    /// Notices for a to-do just written whose alarm can no longer ring: a pending one-off due in the past, or a
    /// repeat whose every occurrence is past. The write is kept, as the app keeps an overdue to-do.
    func pastNotices(account: Account, now: Date) -> [String] {
        let rules = account.rules
        if let schedule = schedule(account: account) {
            guard let last = schedule.last, let alarm = alarm(on: last, account: account), alarm <= now else {
                return []
            }
            return [
                "Every occurrence of this repeat is already past (the last was on \(last)), so its alarm will not "
                    + "ring again. Tell the user."
            ]
        }
        guard !isRepeating, status == .pending, let dueAt, dueAt <= now else { return [] }
        return [
            "The due time \(rules.format(dueAt)) is already past, so the alarm will not ring; the to-do is kept as "
                + "overdue. Tell the user; update_todo with a later due sets a new alarm."
        ]
    }
}
