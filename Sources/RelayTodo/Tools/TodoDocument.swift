import Foundation
import RelayJSON

/// A to-do as a plain-text document (`fetch`'s `text`), a one-line summary (`search`'s `text`) and string
/// metadata (`fetch`'s `metadata`). Every instant is on the Account zone's wall clock (the zone is named once);
/// a repeat is described in words as `list_todos` does, with its time of day on the to-do's own clock. Recent
/// days of a repeat come from its Occurrence records: the `pastDays` before today, today and the `comingDays`
/// after it, on the to-do's own clock.
struct TodoDocument {
    let todo: Todo
    let account: Account
    let now: Date
    /// The to-do's Occurrence records known to the caller: "next" skips days done or skipped and takes a snooze.
    var occurrences: [Occurrence] = []

    /// Days before today whose state `fetch` shows.
    static let pastDays = 14
    /// Days after today whose state `fetch` shows (a skip or snooze set ahead).
    static let comingDays = 7

    private var rules: TimeRules { account.rules }

    /// The title as shown: a record the app wrote without one still gets a name.
    var title: String { todo.title.isEmpty ? "(no title)" : todo.title }

    /// One line: kind, state and when it rings. "Pending, due Sunday 2026-03-08 09:00 (America/New_York)."
    var summary: String {
        guard let repeatRule = todo.repeatRule else {
            let state = todo.status.rawValue.capitalized
            guard let dueAt = todo.dueAt else { return "\(state), no due time." }
            var line = "\(state), due \(rules.readable(dueAt))"
            if let ringsAt = todo.ringsAt, ringsAt != dueAt { line += ", snoozed until \(rules.readable(ringsAt))" }
            return line + " (\(rules.zoneName))."
        }
        var line = "Repeats \(repeatDescription(repeatRule))"
        if let next = todo.nextOccurrence(account: account, now: now, occurrences: occurrences) {
            line += "; next \(rules.readable(next.alarm)) (\(rules.zoneName))"
        } else if todo.isFinished(account: account, now: now) {
            line += "; ended"
        }
        return line + "."
    }

    /// The whole document; `occurrences` are the to-do's Occurrence records (any dates: only the recent ones
    /// are shown).
    func text(occurrences: [Occurrence]) -> String {
        var lines = [title, "Times are in \(rules.zoneName)."]
        if let repeatRule = todo.repeatRule {
            lines.append("Repeating to-do: \(repeatDescription(repeatRule)).")
            if account.prefersJapanese {
                lines.append("繰り返し: \(repeatRule.japaneseDescription(start: start, zone: ownZone)).")
            }
            if let dueAt = todo.dueAt { lines.append("First occurrence: \(rules.readable(dueAt)).") }
            if let next = todo.nextOccurrence(account: account, now: now, occurrences: occurrences) {
                lines.append("Next occurrence: \(rules.readable(next.alarm)).")
            } else if let last = todo.schedule(account: account)?.last {
                lines.append("The repeat has ended; its last occurrence was on \(last).")
            }
            lines += recentDays(occurrences)
        } else {
            lines.append("One-off to-do, \(todo.status.rawValue).")
            lines.append(todo.dueAt.map { "Due: \(rules.readable($0))." } ?? "No due time.")
            if let snoozedUntil = todo.snoozedUntil { lines.append("Snoozed until \(rules.readable(snoozedUntil)).") }
            if let completedAt = todo.completedAt { lines.append("Completed: \(rules.readable(completedAt)).") }
        }
        if let createdAt = todo.createdAt {
            let origin = todo.source == .mcp ? "through an AI assistant" : "in the MustDo app"
            lines.append("Created \(origin): \(rules.readable(createdAt)).")
        }
        if let changedAt = todo.changedAt { lines.append("Last changed: \(rules.readable(changedAt)).") }
        if let notes = todo.notes, !notes.isEmpty { lines += ["Notes:", notes] }
        return lines.joined(separator: "\n")
    }

    /// String keys and values (OpenAI's example schema types `metadata` as a record of strings).
    var metadata: JSONObject {
        var metadata: JSONObject = [
            "kind": todo.isRepeating ? "repeating" : "one-off", "status": .string(todo.status.rawValue),
            "timeZone": .string(rules.zoneName), "source": .string(todo.source.rawValue),
        ]
        func add(_ key: String, _ instant: Date?) { if let instant { metadata[key] = .string(rules.format(instant)) } }
        add("due", todo.dueAt)
        if let repeatRule = todo.repeatRule {
            metadata["repeat"] = .string(repeatRule.englishDescription(start: start, zone: ownZone))
            add("nextOccurrence", todo.nextOccurrence(account: account, now: now, occurrences: occurrences)?.alarm)
        }
        add("snoozedUntil", todo.snoozedUntil)
        add("completedAt", todo.completedAt)
        add("createdAt", todo.createdAt)
        add("changedAt", todo.changedAt)
        return metadata
    }

    /// The first occurrence on the to-do's own wall clock.
    private var start: LocalDateTime? { todo.dueAt.map { todo.rules(account: account).wallClock(at: $0) } }

    /// The to-do's own zone when it is not the Account's.
    private var ownZone: String? {
        let own = todo.rules(account: account).zoneName
        return own == rules.zoneName ? nil : own
    }

    /// The rule in words, naming the zone of its time of day.
    private func repeatDescription(_ rule: RepeatRule) -> String {
        let words = rule.englishDescription(start: start, zone: ownZone)
        return ownZone == nil && start != nil ? "\(words) (\(rules.zoneName) time)" : words
    }

    /// One line per day in the window that the repeat rings on or that has an Occurrence record.
    private func recentDays(_ occurrences: [Occurrence]) -> [String] {
        let own = todo.rules(account: account)
        let today = own.today(now: now)
        let schedule = todo.schedule(account: account)
        let byDate = Dictionary(
            occurrences.filter { $0.todoId == todo.id }.map { ($0.date, $0) }, uniquingKeysWith: { first, _ in first })
        var lines: [String] = []
        for offset in -Self.pastDays...Self.comingDays {
            let date = today.adding(days: offset)
            let recorded = byDate[date]
            // A day the repeat no longer rings on (its rule changed) is not one of its days, whatever was recorded.
            guard schedule?.contains(date) ?? (recorded != nil) else { continue }
            var line = "- \(date.weekday.englishName) \(date)"
            if offset == 0 { line += " (today)" }
            switch recorded?.state {
            case .done?: line += ": done"
            case .skipped?: line += ": skipped"
            case .snoozed?:
                line += ": snoozed" + (recorded?.snoozedUntil.map { " until \(rules.readable($0))" } ?? "")
            case nil: line += offset < 0 ? ": not marked done" : offset == 0 ? ": open" : ": coming"
            }
            lines.append(line)
        }
        let from = today.adding(days: -Self.pastDays)
        let to = today.adding(days: Self.comingDays)
        let heading = "Days from \(from) to \(to)" + (ownZone.map { " (dates in \($0))" } ?? "")
        return lines.isEmpty ? [heading + ": none."] : [heading + ":"] + lines
    }
}
