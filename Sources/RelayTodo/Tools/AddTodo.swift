import Foundation
import RelayJSON

/// `add_todo`: creates a to-do.
package enum AddTodo {
    /// Validated arguments.
    package struct Request: Sendable, Equatable {
        /// 1–200 characters, trimmed.
        package var title: String
        /// When to ring; nil = tomorrow at the default time.
        package var due: TimeInput?
        /// Up to 4000 characters; nil when left out or empty.
        package var notes: String?
        /// nil = `default`.
        package var sound: Sound?
        /// nil = one-off (also for `{kind: "none"}`).
        package var repeatRule: RepeatRule?

        /// A request with every part given.
        package init(
            title: String, due: TimeInput? = nil, notes: String? = nil, sound: Sound? = nil,
            repeatRule: RepeatRule? = nil
        ) {
            self.title = title
            self.due = due
            self.notes = notes
            self.sound = sound
            self.repeatRule = repeatRule
        }
    }

    /// The to-do to create and what happened to its due time on the way.
    package struct Created: Sendable, Equatable {
        /// The new record (all fields to write).
        package let todo: Todo
        /// Set when the due time was moved out of quiet hours.
        package let quietHoursAdjusted: QuietHoursAdjustment?
        /// Set when a repeat's first occurrence was moved to a day the rule lists.
        package let dueAligned: QuietHoursAdjustment?
        /// Lines for the user: a time the clocks skip, a due time already past.
        package let notices: [String]
    }

    /// Validates the arguments (no I/O, no Account needed).
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> Request {
        let object = try ArgumentObject(
            arguments, field: "", allowed: ["title", "due", "notes", "sound", "repeat"])
        guard let title = try object.text("title", maxLength: 200) else {
            throw .invalidArgument("title", "is required")
        }
        let notes = try object.text("notes", maxLength: 4000, allowEmpty: true, multiline: true)
        return Request(
            title: title, due: try object.time("due"), notes: notes?.isEmpty == false ? notes : nil,
            sound: try object.choice("sound", of: Sound.self),
            repeatRule: try object["repeat"].flatMap { value throws(TodoError) in try RepeatRule.parse(value) })
    }

    /// The new to-do: `PAYMENT_REQUIRED` unless the entitlement hint allows adding; the due time follows
    /// `DuePlan` (default tomorrow at the default time, out of quiet hours, a repeat's first occurrence on a day
    /// its rule lists); `source = mcp`, `status = pending`, the Account zone, `createdAt = changedAt = now`. A due
    /// time already past is accepted, as the app keeps an overdue to-do, with a notice that it will not ring.
    /// `newID` is a fresh UUID (lowercased here).
    package static func apply(_ request: Request, account: Account, now: Date, newID: String) throws(TodoError)
        -> Created
    {
        guard account.canAddTodos(now: now) else { throw .paymentRequired }
        let rules = account.rules
        let plan = DuePlan(
            request.due, rule: request.repeatRule, rules: rules, quietHours: account.quietHours, now: now)
        try request.repeatRule?.checkEnd(firstOccurrence: plan.due, rules: rules, field: "repeat")
        let todo = Todo(
            id: newID.lowercased(), title: request.title, notes: request.notes, dueAt: plan.due,
            timeZone: rules.zoneName, sound: request.sound ?? .default, repeatRule: request.repeatRule,
            status: .pending, source: .mcp, createdAt: now, changedAt: now)
        return Created(
            todo: todo, quietHoursAdjusted: plan.quietHoursAdjusted, dueAligned: plan.dueAligned,
            notices: plan.notices + todo.pastNotices(account: account, now: now))
    }

    /// The result's `structuredContent`: `{timeZone, todo, quietHoursAdjusted?, dueAligned?, notices?}`.
    package static func result(_ created: Created, account: Account) -> JSONValue {
        var object: JSONObject = [
            "timeZone": .string(account.rules.zoneName), "todo": created.todo.json(account: account),
        ]
        if let adjustment = created.quietHoursAdjusted {
            object["quietHoursAdjusted"] = adjustment.json(account: account)
        }
        if let alignment = created.dueAligned { object["dueAligned"] = alignment.json(account: account) }
        if !created.notices.isEmpty { object["notices"] = .array(created.notices.map(JSONValue.string)) }
        return .object(object)
    }
}

extension RepeatRule {
    /// `INVALID_ARGUMENT` on `<field>.end.until` when the rule would end before its first occurrence.
    func checkEnd(firstOccurrence: Date, rules: TimeRules, field: String) throws(TodoError) {
        if case .until(let last) = end, last < rules.today(now: firstOccurrence) {
            throw .invalidArgument("\(field).end.until", "is before the first occurrence (due)")
        }
    }
}
