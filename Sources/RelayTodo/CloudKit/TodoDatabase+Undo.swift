import Foundation
import RelayCloudKit

/// Undo (issue 44): what a write records for it (`undoEntry`), and putting it back (`undo`). Undo writes only
/// while a record still carries the change tag the write left, with that tag on the operation (`replace`,
/// `delete`), so CloudKit itself refuses it if anything saved the record in between, even in the same
/// millisecond: undo never overwrites a newer change. It does not merge.
extension TodoDatabase {
    /// How undo ended for one entry.
    struct Undone {
        /// The to-do it was about.
        let todoId: String
        /// Nil: put back.
        let error: TodoError?
    }

    /// The `Todo` field names the digest covers, in `TodoField` order.
    var todoFieldNames: [String] { TodoField.allCases.map { schema.todo.name(of: $0) } }

    /// The `Occurrence` field names the digest covers.
    var occurrenceFieldNames: [String] {
        let names = schema.occurrence
        return [names.todoId, names.date, names.state, names.snoozedUntil, names.changedAt]
    }

    /// The entry for a to-do the call created (`after`: the record CloudKit saved).
    func undoEntry(added after: Record) -> UndoHandle.Entry {
        UndoHandle.Entry(
            todoId: after.recordName, recordName: after.recordName, isOccurrence: false,
            changeTag: after.recordChangeTag ?? "", action: .remove,
            digest: UndoDigest.of(after, names: todoFieldNames))
    }

    /// The entry for `fields` written onto `base` (the record as it was before), saved as `after`.
    func undoEntry(restoring fields: Set<TodoField>, of base: TodoRecord, after: Record) -> UndoHandle.Entry {
        let before = base.record(schema: schema.todo)
        var previous: [String: RelayCloudKit.FieldValue?] = [:]
        for field in fields {
            let name = schema.todo.name(of: field)
            previous[name] = .some(before.fields[name])
        }
        return UndoHandle.Entry(
            todoId: after.recordName, recordName: after.recordName, isOccurrence: false,
            changeTag: after.recordChangeTag ?? "", action: .restore, previous: previous,
            digest: UndoDigest.of(after, names: todoFieldNames))
    }

    /// The entry for an Occurrence written as `after` over `before` (nil: the day had no record).
    func undoEntry(occurrence after: Record, before: OccurrenceRecord?) -> UndoHandle.Entry {
        let todoId =
            (try? OccurrenceRecord(record: after, schema: schema.occurrence).todoId)
            ?? String(after.recordName.split(separator: "|").first ?? "")
        var entry = UndoHandle.Entry(
            todoId: todoId, recordName: after.recordName, isOccurrence: true, changeTag: after.recordChangeTag ?? "",
            action: before == nil ? .delete : .restore, digest: UndoDigest.of(after, names: occurrenceFieldNames))
        if let before {
            let fields = before.record(schema: schema.occurrence).fields
            for name in occurrenceFieldNames { entry.previous[name] = .some(fields[name]) }
        }
        return entry
    }

    /// Puts back what `entries` recorded: one lookup of every record, then one `records/modify` with a conditional
    /// operation for each that has not changed since (25 to-dos and their Occurrences stay far below CloudKit's
    /// 200 per request). Entries of records changed since are refused, naming what changed.
    func undo(_ entries: [UndoHandle.Entry], now: Date) async throws -> [Undone] {
        let found = try await lookup(entries.map(\.recordName))
        var errors: [String: TodoError] = [:]
        var operations: [RecordOperation] = []
        for entry in entries {
            do throws(TodoError) {
                operations.append(try undoOperation(entry, current: found[entry.recordName], now: now))
            } catch {
                errors[entry.recordName] = error
            }
        }
        if !operations.isEmpty {
            let results = try await session.perform { token throws(CloudKitError) in
                try await client.modify(operations, token: token)
            }
            var answered: Set<String> = []
            for result in results {
                guard let name = result.recordName else { continue }
                answered.insert(name)
                if let error = result.error { errors[name] = Self.undoRefusal(error) }
            }
            for operation in operations where !answered.contains(operation.record.recordName) {
                errors[operation.record.recordName] = .upstreamUnavailable()
            }
        }
        return entries.map { Undone(todoId: $0.todoId, error: errors[$0.recordName]) }
    }

    /// The conditional operation that undoes `entry` on `current` (the record now), or why there is none.
    private func undoOperation(_ entry: UndoHandle.Entry, current: Record?, now: Date) throws(TodoError)
        -> RecordOperation
    {
        guard let current else {
            throw TodoError(
                code: .notFound,
                message: entry.isOccurrence
                    ? "Not undone: that day's record was removed after the change (the app cleared it); nothing "
                        + "is left to put back."
                    : "Not undone: the to-do no longer exists (the app purged it).",
                field: "undo")
        }
        guard current.recordChangeTag == entry.changeTag else { throw changedSince(entry, current: current) }
        var record = current
        switch entry.action {
        case .delete:
            return RecordOperation(.delete, record)
        case .restore:
            for (name, value) in entry.previous { record.fields[name] = value }
            return RecordOperation(.replace, record)
        case .remove:
            // A soft delete, as the app deletes (and as `delete_todo` does); the app purges it later.
            record.fields[schema.todo.deletedAt] = .timestamp(now.cloudKitMilliseconds)
            record.fields[schema.todo.changedAt] = .timestamp(now.cloudKitMilliseconds)
            return RecordOperation(.replace, record)
        }
    }

    /// `CONFLICT` naming what changed on the record since the write (never the values).
    private func changedSince(_ entry: UndoHandle.Entry, current: Record) -> TodoError {
        let names = entry.isOccurrence ? occurrenceFieldNames : todoFieldNames
        let changed = UndoDigest.changed(current, names: names, since: entry.digest)
        var what: [String] = []
        for name in changed where name != schema.todo.changedAt && name != schema.occurrence.changedAt {
            what.append(entry.isOccurrence ? occurrenceWords(name) : todoWords(name, current: current))
        }
        let subject = entry.isOccurrence ? "that day of the repeating to-do" : "the to-do"
        let change =
            what.isEmpty
            ? "\(subject) was saved again after that call (by the app or another device)"
            : "\(subject) was changed after that call (\(what.joined(separator: ", ")))"
        return TodoError(
            code: .conflict,
            message: "Not undone: \(change), and undo never overwrites a newer change. Read it again (fetch or "
                + "list_todos) and change it directly if the user still wants to.",
            field: "undo")
    }

    /// How a refused undo names a `Todo` field.
    private func todoWords(_ name: String, current: Record) -> String {
        let fields = schema.todo
        switch name {
        case fields.deletedAt: return current.fields[name] == nil ? "it was restored" : "it was deleted"
        case fields.dueAt: return "due time"
        case fields.repeatRule: return "repeat"
        case fields.snoozedUntil: return "snooze"
        case fields.completedAt: return "completion time"
        default: return name
        }
    }

    /// How a refused undo names an `Occurrence` field.
    private func occurrenceWords(_ name: String) -> String {
        name == schema.occurrence.snoozedUntil ? "snooze" : name
    }

    /// An item error of the undo's `records/modify`: a change tag that moved in between is a change since.
    private static func undoRefusal(_ error: CloudKitError) -> TodoError {
        switch error.kind {
        case .conflict:
            return TodoError(
                code: .conflict,
                message: "Not undone: the to-do was changed at the same moment as the undo, and undo never "
                    + "overwrites a newer change. Read it again and change it directly if still wanted.",
                field: "undo")
        case .notFound:
            return TodoError(code: .notFound, message: "Not undone: the record no longer exists.", field: "undo")
        default:
            if let tool = error.toolError, let code = TodoError.Code(rawValue: tool.code) {
                return TodoError(code: code, message: tool.message)
            }
            return .upstreamUnavailable()
        }
    }
}

extension TodoRecord.Schema {
    /// The record field that holds `field`.
    func name(of field: TodoField) -> String {
        switch field {
        case .title: title
        case .notes: notes
        case .dueAt: dueAt
        case .timeZone: timeZone
        case .sound: sound
        case .repeatRule: repeatRule
        case .status: status
        case .snoozedUntil: snoozedUntil
        case .completedAt: completedAt
        case .deletedAt: deletedAt
        case .source: source
        case .createdAt: createdAt
        case .changedAt: changedAt
        }
    }
}
