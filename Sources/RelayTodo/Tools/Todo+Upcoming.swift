import Foundation
import RelayCloudKit
import RelayJSON

extension Todo {
    /// When a one-off rings: its due time, or for a pending one snoozed past it, the time it was snoozed to.
    var ringsAt: Date? {
        guard status == .pending, let snoozedUntil else { return dueAt }
        return max(snoozedUntil, dueAt ?? snoozedUntil)
    }

    /// The next occurrence that rings at or after `now`, with its alarm, as the app sees the days: a day marked
    /// done or skipped in `occurrences` rings no more, a snoozed one rings at its `snoozedUntil` (yesterday's
    /// too, when snoozed past midnight), an unmarked one at its alarm (today's when it is still to come). nil
    /// for a one-off, a repeat without a due time, or a repeat that has ended.
    func nextOccurrence(account: Account, now: Date, occurrences: [Occurrence] = []) -> (date: LocalDate, alarm: Date)?
    {
        guard let schedule = schedule(account: account) else { return nil }
        let today = rules(account: account).today(now: now)
        let states = Self.states(occurrences.filter { $0.todoId == id })
        let yesterday = today.adding(days: -1)
        var candidate = schedule.contains(yesterday) ? yesterday : schedule.next(after: yesterday)
        // Bounded: a repeat whose every coming day is marked would otherwise be walked to its end.
        for _ in 0..<800 {
            guard let date = candidate else { return nil }
            candidate = schedule.next(after: date)
            let state = states[date]
            if state?.state == .done || state?.state == .skipped { continue }
            if state?.state == .snoozed, let snoozedUntil = state?.snoozedUntil {
                if snoozedUntil >= now { return (date, snoozedUntil) }
                continue
            }
            guard date >= today, let alarm = alarm(on: date, account: account), alarm >= now else { continue }
            return (date, alarm)
        }
        return nil
    }

    /// The Occurrence of each day; two of one day (a copy in flight) keep the one changed last, as the app does.
    static func states(_ occurrences: [Occurrence]) -> [LocalDate: Occurrence] {
        Dictionary(
            occurrences.map { ($0.date, $0) },
            uniquingKeysWith: { first, second in
                (second.changedAt ?? .distantPast) > (first.changedAt ?? .distantPast) ? second : first
            })
    }

    /// When the occurrence on `date` rings as the app sees it: its snooze when snoozed, its alarm otherwise.
    func ringsAt(on date: LocalDate, occurrence: Occurrence?, account: Account) -> Date? {
        if occurrence?.state == .snoozed, let snoozedUntil = occurrence?.snoozedUntil { return snoozedUntil }
        return alarm(on: date, account: account)
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

extension TimeRules {
    /// The Occurrence dates that can be "today" in some time zone at `now` (UTC yesterday, today, tomorrow), so
    /// one lookup can fetch a repeating to-do's Occurrence before its own zone is known.
    static func possibleTodays(now: Date) -> [LocalDate] {
        let today = TimeRules.utc.today(now: now)
        return [today.adding(days: -1), today, today.adding(days: 1)]
    }
}
