import Foundation

extension Todo {
    /// When a one-off rings: its due time, or for a pending one snoozed past it, the time it was snoozed to.
    var ringsAt: Date? {
        guard status == .pending, let snoozedUntil else { return dueAt }
        return max(snoozedUntil, dueAt ?? snoozedUntil)
    }

    /// The next occurrence that rings at or after `now` (today's when its alarm is still to come), with its
    /// alarm; nil for a one-off, a repeat without a due time, or a repeat that has ended.
    func nextOccurrence(account: Account, now: Date) -> (date: LocalDate, alarm: Date)? {
        guard let schedule = schedule(account: account) else { return nil }
        let today = rules(account: account).today(now: now)
        if schedule.contains(today), let alarm = alarm(on: today, account: account), alarm >= now {
            return (today, alarm)
        }
        guard let date = schedule.next(after: today), let alarm = alarm(on: date, account: account) else { return nil }
        return (date, alarm)
    }

    /// Whether nothing more is expected of it: a one-off done or skipped, or a repeat whose last occurrence is
    /// before today on its own clock.
    func isFinished(account: Account, now: Date) -> Bool {
        guard isRepeating else { return status != .pending }
        guard let last = schedule(account: account)?.last else { return false }
        return last < rules(account: account).today(now: now)
    }
}

extension TimeRules {
    /// `instant` on this zone's wall clock for a reader: `Sunday 2026-03-08 09:00`.
    func readable(_ instant: Date) -> String {
        let wall = wallClock(at: instant)
        return "\(wall.date.weekday.englishName) \(wall.date) \(wall.time)"
    }
}
