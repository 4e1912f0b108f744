import Foundation
import RelayCloudKit
import RelayJSON

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

extension SnoozeTodo {
    /// `snooze_todo`: like `complete_todo`, with state snoozed and `snoozedUntil` (or skipped).
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let dates = request.occurrenceDate.map { [$0] } ?? TimeRules.possibleTodays(now: now)
        let snapshot = try await database.snapshot(
            id: request.id, occurrences: dates.map { Occurrence.recordName(todoId: request.id, date: $0) })
        var snoozed = try apply(
            request, current: snapshot.todo.map(Todo.init(record:)), account: snapshot.account, now: now)
        var entries: [UndoHandle.Entry] = []
        switch snoozed.outcome {
        case .updated(let change):
            let (todo, entry) = try await database.saveExisting(change, snapshot)
            var saved = Snoozed(
                outcome: .updated(TodoChange(todo: todo, fields: change.fields)), until: snoozed.until,
                quietHoursAdjusted: snoozed.quietHoursAdjusted, next: snoozed.next)
            saved.notices = snoozed.notices
            snoozed = saved
            entries = entry.map { [$0] } ?? []
        case .occurrence(_, let occurrence):
            entries = [try await database.save(occurrence, base: snapshot.occurrences[occurrence.recordName])]
        }
        return result(snoozed, account: snapshot.account).adding(undo: database.undo(entries, now: now))
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
        var entries: [UndoHandle.Entry] = []
        switch try await database.save(change, onto: base) {
        case .saved(let saved, let entry):
            todo = saved
            entries = entry.map { [$0] } ?? []
        case .deleted(let saved): todo = saved
        }
        return result(TodoChange(todo: todo, fields: change.fields), account: snapshot.account).adding(
            undo: database.undo(entries, now: now))
    }
}

extension TodoDatabase {
    /// Saves a change to the snapshot's to-do; soft-deleted meanwhile is `NOT_FOUND`. Returns the to-do as saved
    /// and what undo needs (nil when nothing was written).
    func saveExisting(_ change: TodoChange, _ snapshot: Snapshot) async throws -> (Todo, UndoHandle.Entry?) {
        guard let base = snapshot.todo else { throw TodoError.notFound(id: change.todo.id) }
        switch try await save(change, onto: base) {
        case .saved(let todo, let entry): return (todo, entry)
        case .deleted: throw TodoError.notFound(id: change.todo.id)
        }
    }

    /// This person's undo seal.
    var undoSeal: UndoSeal { UndoSeal(toolKey: environment.cursorKey, owner: owner) }

    /// The sealed undo handle for `entries` written at `now` (no entries: a handle that undoes nothing).
    func undo(_ entries: [UndoHandle.Entry], now: Date) -> String {
        undoSeal.seal(UndoHandle(entries: entries, now: now))
    }
}

extension JSONValue {
    /// This result object with its `undo` handle.
    func adding(undo: String) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object["undo"] = .string(undo)
        return .object(object)
    }
}
