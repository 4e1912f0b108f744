import Foundation
import RelayCloudKit
import RelayJSON

extension AddTodo {
    /// `add_todo`: the Account (entitlement, zone, default time), then `create`.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let account = try await database.snapshot().account
        let created = try apply(request, account: account, now: now, newID: UUID().uuidString)
        try await database.create(created.todo)
        return result(created, account: account)
    }
}

extension UpdateTodo {
    /// `update_todo`: Account and to-do in one lookup, then a `replace` of the fields that change.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let snapshot = try await database.snapshot(id: request.id)
        let updated = try apply(
            request, current: snapshot.todo.map(Todo.init(record:)), account: snapshot.account, now: now)
        let todo = try await database.saveExisting(updated.change, snapshot)
        let change = TodoChange(todo: todo, fields: updated.change.fields)
        return result(
            Updated(
                change: change, quietHoursAdjusted: updated.quietHoursAdjusted, dueAligned: updated.dueAligned,
                notices: updated.notices), account: snapshot.account)
    }
}

extension CompleteTodo {
    /// `complete_todo`: Account, to-do and the candidate Occurrences in one lookup, then one write (none when
    /// it was already done).
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let dates = request.occurrenceDate.map { [$0] } ?? TimeRules.possibleTodays(now: now)
        let snapshot = try await database.snapshot(
            id: request.id, occurrences: dates.map { Occurrence.recordName(todoId: request.id, date: $0) })
        let account = snapshot.account
        let current = snapshot.todo.map(Todo.init(record:))
        let stored = current.flatMap { todo in
            snapshot.occurrences[
                Occurrence.recordName(
                    todoId: todo.id, date: occurrenceDate(request, todo: todo, account: account, now: now))]
        }
        var outcome = try apply(
            request, current: current, existing: stored.flatMap(Occurrence.init(record:)), account: account, now: now)
        switch outcome {
        case .updated(let change):
            outcome = .updated(
                TodoChange(todo: try await database.saveExisting(change, snapshot), fields: change.fields))
        case .occurrence(_, let occurrence): try await database.save(occurrence, base: stored)
        case .alreadyDone: break
        }
        return result(outcome, account: account)
    }
}

extension SnoozeTodo {
    /// `snooze_todo`: like `complete_todo`, with state snoozed and `snoozedUntil` (or skipped).
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let dates = request.occurrenceDate.map { [$0] } ?? TimeRules.possibleTodays(now: now)
        let snapshot = try await database.snapshot(
            id: request.id, occurrences: dates.map { Occurrence.recordName(todoId: request.id, date: $0) })
        var snoozed = try apply(
            request, current: snapshot.todo.map(Todo.init(record:)), account: snapshot.account, now: now)
        switch snoozed.outcome {
        case .updated(let change):
            let todo = try await database.saveExisting(change, snapshot)
            snoozed = Snoozed(
                outcome: .updated(TodoChange(todo: todo, fields: change.fields)), until: snoozed.until,
                quietHoursAdjusted: snoozed.quietHoursAdjusted, next: snoozed.next)
        case .occurrence(_, let occurrence):
            try await database.save(occurrence, base: snapshot.occurrences[occurrence.recordName])
        }
        return result(snoozed, account: snapshot.account)
    }
}

extension DeleteTodo {
    /// `delete_todo`: a soft delete (`deletedAt`). Deleted elsewhere meanwhile counts as done.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let snapshot = try await database.snapshot(id: request.id)
        let change = try apply(request, current: snapshot.todo.map(Todo.init(record:)), now: now)
        guard let base = snapshot.todo else { throw TodoError.notFound(id: request.id) }
        let todo: Todo
        switch try await database.save(change, onto: base) {
        case .saved(let saved), .deleted(let saved): todo = saved
        }
        return result(TodoChange(todo: todo, fields: change.fields), account: snapshot.account)
    }
}

extension TodoDatabase {
    /// Saves a change to the snapshot's to-do; soft-deleted meanwhile is `NOT_FOUND`.
    func saveExisting(_ change: TodoChange, _ snapshot: Snapshot) async throws -> Todo {
        guard let base = snapshot.todo else { throw TodoError.notFound(id: change.todo.id) }
        switch try await save(change, onto: base) {
        case .saved(let todo): return todo
        case .deleted: throw TodoError.notFound(id: change.todo.id)
        }
    }
}
