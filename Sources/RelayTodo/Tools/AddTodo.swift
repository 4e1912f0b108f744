import Foundation
import RelayCloudKit
import RelayJSON
import RelayMCP

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

extension AddTodo {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "add_todo", title: "Add a to-do",
        description: """
            Adds a to-do to the user's MustDo app; its alarm rings on the iPhone at the due time until the \
            user marks it done. For a simple to-do pass only title. Pass due only when the user names a time \
            ("tomorrow 9:00", "today 15:00"); if they name only a day, pass YYYY-MM-DD and it rings at their \
            default time. YYYY-MM-DDTHH:mm is wall-clock time in the user's time zone (call get_me first). \
            Without due it rings at get_me's defaultDueNext. For a repeating to-do, due is the first occurrence \
            and sets the time of day: "monthly on the 5th" needs due on a 5th, yearly uses due's month and day; \
            a due on a day the rule does not list (a Tuesday for "Mondays and Wednesdays") moves to the next day \
            it does (dueAligned). A due inside the user's quiet hours moves to their end (quietHoursAdjusted). A \
            due already past is saved but will not ring (notices). Tell the user about quietHoursAdjusted, \
            dueAligned and notices. title and notes are plain text: control characters are refused (notes may \
            have line breaks). Fails with PAYMENT_REQUIRED when the app does not allow adding (get_me's \
            canAddTodos is false). \
            \(UndoText.sentence)
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object(
            [
                ("title", Schema.string("What to do, in the user's words.", minLength: 1, maxLength: 200)),
                ("due", Schema.timeInput("When the alarm rings. Leave out for tomorrow at the default time.")),
                ("notes", Schema.string("Optional details.", maxLength: 4000)),
                ("sound", Schema.string("Alarm sound. Default: default.", enumeration: Schema.sounds)),
                ("repeat", Schema.repeatInput(nullable: false)),
            ],
            required: ["title"], closed: true),
        outputSchema: Schema.object(
            [
                ("timeZone", Schema.timeZone),
                ("todo", Schema.todo),
                ("quietHoursAdjusted", Schema.quietHoursAdjusted),
                ("dueAligned", Schema.dueAligned),
                ("notices", Schema.notices),
                ("undo", UndoText.schema),
            ],
            required: ["timeZone", "todo", "undo"]),
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false))
}

extension AddTodo {
    /// `add_todo`: the Account (entitlement, zone, default time), then `create`.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let account = try await database.snapshot().account
        let created = try apply(request, account: account, now: now, newID: UUID().uuidString)
        let entry = try await database.create(created.todo)
        return result(created, account: account).adding(undo: database.undo([entry], now: now))
    }
}
