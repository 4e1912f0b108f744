import Foundation
import RelayCloudKit
import RelayJSON
import RelayMCP

/// `update_todo`: changes the fields passed, and only those.
package enum UpdateTodo {
    /// A field that can be left alone, set, or cleared.
    package enum Patch<Value: Sendable & Equatable>: Sendable, Equatable {
        /// Not passed.
        case keep
        /// Passed with a value.
        case set(Value)
        /// Passed as null (or, for `repeat`, `{kind: "none"}`).
        case clear
    }

    /// Validated arguments.
    package struct Request: Sendable, Equatable {
        /// The to-do.
        package var id: String
        /// A new title.
        package var title: String?
        /// A new due time.
        package var due: TimeInput?
        /// Notes: `null` or "" clears.
        package var notes: Patch<String>
        /// A new sound.
        package var sound: Sound?
        /// The whole rule is replaced; `.clear` makes the to-do one-off.
        package var repeatRule: Patch<RepeatRule>
        /// One-off to-dos only.
        package var status: TodoStatus?

        /// A request with every part given.
        package init(
            id: String, title: String? = nil, due: TimeInput? = nil, notes: Patch<String> = .keep, sound: Sound? = nil,
            repeatRule: Patch<RepeatRule> = .keep, status: TodoStatus? = nil
        ) {
            self.id = id
            self.title = title
            self.due = due
            self.notes = notes
            self.sound = sound
            self.repeatRule = repeatRule
            self.status = status
        }
    }

    /// The write and what happened to the due time on the way.
    package struct Updated: Sendable, Equatable {
        /// What to save (may be empty: the to-do already had these values).
        package let change: TodoChange
        /// Set when the due time was moved out of quiet hours.
        package let quietHoursAdjusted: QuietHoursAdjustment?
        /// Set when a repeat's first occurrence was moved to a day the rule lists.
        package let dueAligned: QuietHoursAdjustment?
        /// Lines for the user: a time the clocks skip, a due time already past, a done one-off now repeating.
        package let notices: [String]

        /// An update with every part given.
        package init(
            change: TodoChange, quietHoursAdjusted: QuietHoursAdjustment? = nil,
            dueAligned: QuietHoursAdjustment? = nil, notices: [String] = []
        ) {
            self.change = change
            self.quietHoursAdjusted = quietHoursAdjusted
            self.dueAligned = dueAligned
            self.notices = notices
        }
    }

    /// Validates the arguments (no I/O, no Account needed). At least one field besides `id` is required.
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> Request {
        let object = try ArgumentObject(
            arguments, field: "", allowed: ["id", "title", "due", "notes", "sound", "repeat", "status"])
        var request = Request(id: try object.id())
        request.title = try object.text("title", maxLength: 200)
        request.due = try object.time("due")
        if object.isNull("notes") {
            request.notes = .clear
        } else if let notes = try object.text("notes", maxLength: 4000, allowEmpty: true, multiline: true) {
            request.notes = notes.isEmpty ? .clear : .set(notes)
        }
        request.sound = try object.choice("sound", of: Sound.self)
        if let value = object["repeat"] {
            request.repeatRule = try RepeatRule.parse(value).map(Patch.set) ?? .clear
        }
        request.status = try object.choice("status", of: TodoStatus.self)
        if request == Request(id: request.id) {
            throw TodoError(
                code: .invalidArgument,
                message: "Nothing to change: pass at least one of title, due, notes, sound, "
                    + "repeat, status.")
        }
        return request
    }
}

extension UpdateTodo {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "update_todo", title: "Update a to-do",
        description: """
            Changes an existing to-do (id from list_todos or add_todo). Only the fields you pass change. due \
            takes the same forms as in add_todo (YYYY-MM-DDTHH:mm in the user's time zone from get_me, \
            YYYY-MM-DD for the default time, or ISO 8601 with offset); a new due also cancels an earlier snooze. \
            notes: null clears the notes. repeat replaces the whole rule (sub-fields left out take their \
            defaults); repeat: null or {kind: "none"} makes the to-do one-off; a done one-off given a repeat is \
            pending again. status (pending, done, skipped) can be set only on one-off to-dos; for a repeating \
            to-do use complete_todo or snooze_todo. As in add_todo, a due inside quiet hours moves to their end \
            (quietHoursAdjusted), a repeat's first occurrence moves to the next day its rule lists (dueAligned), \
            a due already past is kept but will not ring (notices), and control characters in title and notes \
            are refused: tell the user about quietHoursAdjusted, dueAligned and notices. The result lists the \
            fields that changed. \
            \(UndoText.sentence)
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object(
            [
                ("id", Schema.id),
                ("title", Schema.string("A new title.", minLength: 1, maxLength: 200)),
                ("due", Schema.timeInput("A new alarm time (a repeating to-do: its first occurrence).")),
                ("notes", Schema.string("New notes; null clears them.", nullable: true, maxLength: 4000)),
                ("sound", Schema.string("A new alarm sound.", enumeration: Schema.sounds)),
                ("repeat", Schema.repeatInput(nullable: true)),
                ("status", Schema.string("One-off to-dos only.", enumeration: TodoStatus.allCases.map(\.rawValue))),
            ],
            required: ["id"], closed: true),
        outputSchema: Schema.object(
            [
                ("timeZone", Schema.timeZone),
                ("todo", Schema.todo),
                ("changed", Schema.array(of: Schema.string(), description: "The record fields that changed.")),
                ("quietHoursAdjusted", Schema.quietHoursAdjusted),
                ("dueAligned", Schema.dueAligned),
                ("notices", Schema.notices),
                ("undo", UndoText.schema),
            ],
            required: ["timeZone", "todo", "changed", "undo"]),
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false))
}

extension UpdateTodo {
    /// `update_todo`: Account and to-do in one lookup, then a `replace` of the fields that change.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let snapshot = try await database.snapshot(id: request.id)
        let updated = try apply(
            request, current: snapshot.todo.map(Todo.init(record:)), account: snapshot.account, now: now)
        let (todo, entry) = try await database.saveExisting(updated.change, snapshot)
        let change = TodoChange(todo: todo, fields: updated.change.fields)
        return result(
            Updated(
                change: change, quietHoursAdjusted: updated.quietHoursAdjusted, dueAligned: updated.dueAligned,
                notices: updated.notices), account: snapshot.account
        ).adding(undo: database.undo(entry.map { [$0] } ?? [], now: now))
    }
}

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
