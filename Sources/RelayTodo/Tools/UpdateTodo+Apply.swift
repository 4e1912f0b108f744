import Foundation
import RelayJSON

extension UpdateTodo {
    /// Applies `request` to the current record (`nil` or soft-deleted → `NOT_FOUND`).
    ///
    /// A new `due` follows `DuePlan` in the Account zone (DST gap, quiet hours, a repeat's first day),
    /// re-anchors the to-do to the Account zone and cancels an earlier snooze; a new rule without a new `due`
    /// moves the stored due forward to a day the rule lists, on the to-do's own wall clock. `status` on a to-do
    /// that repeats after this call is `INVALID_ARGUMENT`; `done` stamps `completedAt`, other states clear it, and
    /// `done` or `skipped` cancels a pending snooze. A one-off that becomes a repeat is pending again: done and
    /// skipped live per day on a repeat, and a `completedAt` would let the app purge the series.
    package static func apply(_ request: Request, current: Todo?, account: Account, now: Date) throws(TodoError)
        -> Updated
    {
        guard let todo = current, !todo.isDeleted else { throw .notFound(id: request.id) }
        var new = todo
        if let title = request.title { new.title = title }
        switch request.notes {
        case .keep: break
        case .set(let notes): new.notes = notes
        case .clear: new.notes = nil
        }
        if let sound = request.sound { new.sound = sound }
        switch request.repeatRule {
        case .keep: break
        case .set(let rule): new.repeatRule = rule
        case .clear: new.repeatRule = nil
        }
        if let status = request.status {
            guard !new.isRepeating else {
                throw .invalidArgument(
                    "status", "can only be set on a one-off to-do; use complete_todo or snooze_todo for a repeating one"
                )
            }
            new.status = status
            new.completedAt = status == .done ? (todo.status == .done ? todo.completedAt : now) : nil
            if status != .pending { new.snoozedUntil = nil }
        }
        var plan: DuePlan?
        if let due = request.due {
            let planned = DuePlan(
                due, rule: new.repeatRule, rules: account.rules, quietHours: account.quietHours, now: now)
            new.dueAt = planned.due
            new.timeZone = account.rules.zoneName
            new.snoozedUntil = nil
            plan = planned
        } else if case .set(let rule) = request.repeatRule, let dueAt = new.dueAt {
            let aligned = DuePlan(aligning: dueAt, to: rule, rules: new.rules(account: account))
            new.dueAt = aligned.due
            plan = aligned
        }
        var notices = plan?.notices ?? []
        if !todo.isRepeating && new.isRepeating {
            if todo.status != .pending {
                notices.append(
                    "It was \(todo.status.rawValue); as a repeating to-do it is pending again, and each day is "
                        + "marked done on its own with complete_todo.")
            }
            new.status = .pending
            new.completedAt = nil
            new.snoozedUntil = nil
        }
        if let rule = new.repeatRule, let dueAt = new.dueAt, request.due != nil || request.repeatRule != .keep {
            try rule.checkEnd(firstOccurrence: dueAt, rules: new.rules(account: account), field: "repeat")
        }
        if request.due != nil || request.repeatRule != .keep || (new.status == .pending && todo.status != .pending) {
            notices += new.pastNotices(account: account, now: now)
        }
        let change = TodoChange(from: todo, to: new, now: now)
        // Nothing written, nothing to tell: a notice about an unchanged due time would read as news (issue 42).
        if change.isEmpty { notices = [] }
        return Updated(
            change: change, quietHoursAdjusted: change.isEmpty ? nil : plan?.quietHoursAdjusted,
            dueAligned: change.isEmpty ? nil : plan?.dueAligned, notices: notices)
    }

    /// The result's `structuredContent`: `{timeZone, todo, changed, quietHoursAdjusted?, dueAligned?, notices?}`.
    package static func result(_ updated: Updated, account: Account) -> JSONValue {
        var object: JSONObject = [
            "timeZone": .string(account.rules.zoneName), "todo": updated.change.todo.json(account: account),
            "changed": .array(updated.change.fieldNames.map(JSONValue.string)),
        ]
        if let adjustment = updated.quietHoursAdjusted {
            object["quietHoursAdjusted"] = adjustment.json(account: account)
        }
        if let alignment = updated.dueAligned { object["dueAligned"] = alignment.json(account: account) }
        if !updated.notices.isEmpty { object["notices"] = .array(updated.notices.map(JSONValue.string)) }
        return .object(object)
    }
}
