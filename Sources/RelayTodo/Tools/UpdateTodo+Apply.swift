import Foundation
import RelayJSON

extension UpdateTodo {
    /// Applies `request` to the current record (`nil` or soft-deleted → `NOT_FOUND`).
    ///
    /// A new `due` is read in the Account zone, moves out of quiet hours (a repeating to-do to the end on the
    /// same day), re-anchors the to-do to the Account zone and cancels an earlier snooze. `status` on a to-do
    /// that repeats after this call is `INVALID_ARGUMENT`; `done` stamps `completedAt`, other states clear it.
    public static func apply(_ request: Request, current: Todo?, account: Account, now: Date) throws(TodoError)
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
        }
        var adjustment: QuietHoursAdjustment?
        if let due = request.due {
            let requested = account.rules.resolve(due)
            adjustment = account.quietHours?.adjust(requested, repeating: new.isRepeating, rules: account.rules)
            new.dueAt = adjustment?.actual ?? requested
            new.timeZone = account.rules.zoneName
            new.snoozedUntil = nil
        }
        if let rule = new.repeatRule, let dueAt = new.dueAt, request.due != nil || request.repeatRule != .keep {
            try rule.checkEnd(firstOccurrence: dueAt, rules: new.rules(account: account), field: "repeat")
        }
        return Updated(change: TodoChange(from: todo, to: new, now: now), quietHoursAdjusted: adjustment)
    }

    /// The result's `structuredContent`: `{timeZone, todo, changed, quietHoursAdjusted?}`.
    public static func result(_ updated: Updated, account: Account) -> JSONValue {
        var object: JSONObject = [
            "timeZone": .string(account.rules.zoneName), "todo": updated.change.todo.json(account: account),
            "changed": .array(updated.change.fieldNames.map(JSONValue.string)),
        ]
        if let adjustment = updated.quietHoursAdjusted {
            object["quietHoursAdjusted"] = adjustment.json(account: account)
        }
        return .object(object)
    }
}
