import Foundation
import RelayCloudKit
import RelayJSON
import RelayMCP

/// `complete_todo`: marks a one-off done, or one day of a repeating to-do.
package enum CompleteTodo {
    /// Validated arguments.
    package struct Request: Sendable, Equatable {
        /// The to-do.
        package var id: String
        /// Repeating only: which day; nil = today in the to-do's zone. Ignored for one-offs.
        package var occurrenceDate: LocalDate?

        /// A request with every part given.
        package init(id: String, occurrenceDate: LocalDate? = nil) {
            self.id = id
            self.occurrenceDate = occurrenceDate
        }
    }

    /// What completing means for the record(s).
    package enum Outcome: Sendable, Equatable {
        /// A one-off: save this change (`status = done`, `completedAt = now`).
        case updated(TodoChange)
        /// A repeating to-do: save this Occurrence (`<id>|<date>`, state done).
        case occurrence(Todo, Occurrence)
        /// Already done (the to-do, or that day's Occurrence): nothing to save.
        case alreadyDone(Todo, Occurrence?)
    }

    /// Validates the arguments.
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> Request {
        let object = try ArgumentObject(arguments, field: "", allowed: ["id", "occurrenceDate"])
        return Request(id: try object.id(), occurrenceDate: try object.date("occurrenceDate"))
    }

    /// The occurrence day a request means for a repeating to-do: `occurrenceDate`, or today in the to-do's
    /// own time zone. Look up `Occurrence.recordName(todoId:date:)` for it before calling `apply`.
    package static func occurrenceDate(_ request: Request, todo: Todo, account: Account, now: Date) -> LocalDate {
        request.occurrenceDate ?? todo.rules(account: account).today(now: now)
    }

    /// Completes `current` (`nil` or soft-deleted → `NOT_FOUND`). `existing` is the stored Occurrence for that
    /// day, if any (repeating to-dos only). A one-off's pending snooze is cleared with it, so the snoozed alarm
    /// does not ring for something done. A repeating to-do's day must be one it repeats on (`INVALID_ARGUMENT`
    /// on `occurrenceDate` naming the nearest ones otherwise).
    package static func apply(
        _ request: Request, current: Todo?, existing: Occurrence?, account: Account, now: Date
    ) throws(TodoError) -> Outcome {
        guard let todo = current, !todo.isDeleted else { throw .notFound(id: request.id) }
        guard todo.isRepeating else {
            if todo.status == .done { return .alreadyDone(todo, nil) }
            var done = todo
            done.status = .done
            done.completedAt = now
            done.snoozedUntil = nil
            return .updated(TodoChange(from: todo, to: done, now: now))
        }
        let date = try todo.occurrenceDay(request.occurrenceDate, account: account, now: now)
        if let existing, existing.state == .done, existing.date == date { return .alreadyDone(todo, existing) }
        return .occurrence(todo, Occurrence(todoId: todo.id, date: date, state: .done, changedAt: now))
    }

    /// The result's `structuredContent`: `{timeZone, todo, occurrence, alreadyDone, message}`.
    package static func result(_ outcome: Outcome, account: Account) -> JSONValue {
        let todo: Todo
        let occurrence: Occurrence?
        let alreadyDone: Bool
        switch outcome {
        case .updated(let change): (todo, occurrence, alreadyDone) = (change.todo, nil, false)
        case .occurrence(let repeating, let day): (todo, occurrence, alreadyDone) = (repeating, day, false)
        case .alreadyDone(let done, let day): (todo, occurrence, alreadyDone) = (done, day, true)
        }
        let message: String
        switch (occurrence, alreadyDone) {
        case (nil, false): message = "Marked done."
        case (nil, true): message = "It was already done; nothing changed."
        case (let day?, false): message = "Marked the occurrence on \(day.date) done; the repeat continues."
        case (let day?, true): message = "The occurrence on \(day.date) was already done; nothing changed."
        }
        return [
            "timeZone": .string(account.rules.zoneName), "todo": todo.json(account: account),
            "occurrence": occurrence?.json(account: account) ?? .null, "alreadyDone": .bool(alreadyDone),
            "message": .string(message),
        ]
    }
}

extension CompleteTodo {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "complete_todo", title: "Mark done",
        description: """
            Marks a to-do done, which stops its alarm. A one-off to-do becomes done and a pending snooze of it is \
            cancelled. For a repeating to-do only one day's occurrence is marked done and the repeat continues: \
            occurrenceDate (YYYY-MM-DD) picks the day, default today in the to-do's time zone; it must be a day \
            the to-do repeats on (otherwise INVALID_ARGUMENT names the nearest ones) and is ignored for one-off \
            to-dos. Completing something that is already done succeeds and says so (alreadyDone). \
            \(UndoText.sentence)
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object(
            [
                ("id", Schema.id),
                ("occurrenceDate", Schema.date("Repeating to-dos: the day to mark done. Default: today.")),
            ],
            required: ["id"], closed: true),
        outputSchema: Schema.object(
            [
                ("timeZone", Schema.timeZone),
                ("todo", Schema.todo),
                ("occurrence", Schema.nullable(Schema.occurrence)),
                ("alreadyDone", Schema.boolean()),
                ("message", Schema.string()),
                ("undo", UndoText.schema),
            ],
            required: ["timeZone", "todo", "occurrence", "alreadyDone", "message", "undo"]),
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false))
}

extension CompleteTodo {
    /// `complete_todo`: Account, to-do and the candidate Occurrences in one lookup, then one write (none when
    /// it was already done).
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let snapshot = try await database.snapshot(id: request.id, occurrences: request.occurrenceNames(now: now))
        let account = snapshot.account
        let current = snapshot.todo.map(Todo.init(record:))
        let stored = current.flatMap { todo in
            snapshot.occurrences[
                Occurrence.recordName(
                    todoId: todo.id, date: occurrenceDate(request, todo: todo, account: account, now: now))]
        }
        var outcome = try apply(
            request, current: current, existing: stored.flatMap(Occurrence.init(record:)), account: account, now: now)
        var entries: [UndoHandle.Entry] = []
        switch outcome {
        case .updated(let change):
            let (todo, entry) = try await database.saveExisting(change, snapshot)
            outcome = .updated(TodoChange(todo: todo, fields: change.fields))
            entries = entry.map { [$0] } ?? []
        case .occurrence(_, let occurrence): entries = [try await database.save(occurrence, base: stored)]
        case .alreadyDone: break
        }
        return result(outcome, account: account).adding(undo: database.undo(entries, now: now))
    }
}
