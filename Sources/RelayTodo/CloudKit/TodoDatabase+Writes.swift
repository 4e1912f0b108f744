import Foundation
import RelayCloudKit

/// Writes, following the app's sync rules (seed, "CloudKit's private database as the backend"): every update
/// carries the `recordChangeTag` it was computed from; on CONFLICT the server copy is fetched, only this
/// call's fields are re-applied if this call's `changedAt` is newer, and the record is saved once more. A
/// second CONFLICT (or a newer server copy) is `TodoError.conflict`.
///
/// An existing record is written with `replace` carrying the whole record as read plus this call's fields:
/// `replace` is the documented way to clear a field (`reference/cloudkit-ws.md` §4; whether `update` with
/// `{"value": null}` clears is undocumented), and the change tag makes it as safe as `update`. Records are
/// never deleted: a delete is `deletedAt`.
extension TodoDatabase {
    /// How a to-do write ended.
    enum Saved {
        /// Saved; the to-do as it now is (after a merge: the server copy with this call's fields), and what undo
        /// needs (nil when nothing was written).
        case saved(Todo, UndoHandle.Entry?)
        /// The server copy turned out to be soft-deleted already; nothing was written.
        case deleted(Todo)
    }

    /// Creates `todo` (a new lowercase UUID record name). Creates the zone first if the app never did. A
    /// failure that may have come after the write landed (a timeout, a 5xx) is checked with a lookup, so a
    /// retried call cannot leave two copies. Returns what undo needs to remove it again.
    func create(_ todo: Todo) async throws(CloudKitError) -> UndoHandle.Entry {
        let operation = RecordOperation(.create, TodoRecord(creating: todo).record(schema: schema.todo))
        do throws(CloudKitError) {
            return undoEntry(added: try await modify(operation))
        } catch {
            switch error.kind {
            case .zoneNotFound:
                _ = try await session.perform { token throws(CloudKitError) in
                    try await client.createZone(token: token)
                }
                return undoEntry(added: try await modify(operation))
            case .unavailable:
                guard let landed = (try? await lookup([todo.id]))?[todo.id] else { throw error }
                return undoEntry(added: landed)
            default: throw error
            }
        }
    }

    /// Saves `change` onto `base` (the record it was computed from), merging once on CONFLICT.
    func save(_ change: TodoChange, onto base: TodoRecord) async throws -> Saved {
        guard !change.isEmpty else { return .saved(change.todo, nil) }
        do throws(CloudKitError) {
            let after = try await replace(base, with: change)
            return .saved(change.todo, undoEntry(restoring: change.fields, of: base, after: after))
        } catch {
            // Changed (or purged) by another writer since it was read: merge below.
            guard error.kind == .conflict || error.kind == .notFound else { throw error }
        }
        return try await merge(change)
    }

    /// The second half of `save(_:onto:)`: the server copy is read again and this call's fields re-applied once.
    func merge(_ change: TodoChange) async throws -> Saved {
        let id = change.todo.id
        guard let record = try await lookup([id])[id], let server = try todo(record) else {
            throw TodoError.notFound(id: id)
        }
        switch Merge.reapply(change, onto: Todo(record: server)) {
        case .serverNewer: throw TodoError.conflict
        case .deleted(let todo): return .deleted(todo)
        case .save(let merged):
            guard !merged.isEmpty else { return .saved(merged.todo, nil) }
            do throws(CloudKitError) {
                let after = try await replace(server, with: merged)
                return .saved(merged.todo, undoEntry(restoring: merged.fields, of: server, after: after))
            } catch {
                throw error.kind == .conflict || error.kind == .notFound ? TodoError.conflict : error
            }
        }
    }

    /// Saves `occurrence` (create, or replace `base`), merging once on CONFLICT: last writer wins on
    /// `changedAt`. Returns what undo needs to put the day back.
    func save(_ occurrence: Occurrence, base: OccurrenceRecord?) async throws -> UndoHandle.Entry {
        do throws(CloudKitError) {
            return undoEntry(occurrence: try await write(occurrence, base: base), before: base)
        } catch {
            // Written by another device since it was read: merge below.
            guard error.kind == .conflict || error.kind == .notFound else { throw error }
        }
        return try await merge(occurrence)
    }

    /// The second half of `save(_:base:)`: the server copy is read again and ours written if it is newer.
    func merge(_ occurrence: Occurrence) async throws -> UndoHandle.Entry {
        let name = occurrence.recordName
        let server = try await lookup([name])[name].map { record throws(CloudKitError) in
            try OccurrenceRecord(record: record, schema: schema.occurrence)
        }
        if let current = server.flatMap(Occurrence.init(record:)),
            case .serverNewer = Merge.reapply(occurrence, onto: current)
        {
            throw TodoError.conflict
        }
        do throws(CloudKitError) {
            return undoEntry(occurrence: try await write(occurrence, base: server), before: server)
        } catch {
            throw error.kind == .conflict || error.kind == .notFound ? TodoError.conflict : error
        }
    }

    /// The `replace` that writes `change` onto `record`.
    func operation(replacing record: TodoRecord, with change: TodoChange) -> RecordOperation {
        RecordOperation(.replace, record.applying(change.fields, from: change.todo).record(schema: schema.todo))
    }

    /// The `create` or `replace` that writes `occurrence` onto `base`.
    func operation(writing occurrence: Occurrence, base: OccurrenceRecord?) -> RecordOperation {
        let record = OccurrenceRecord(occurrence, base: base).record(schema: schema.occurrence)
        return RecordOperation(base == nil ? .create : .replace, record)
    }

    private func replace(_ record: TodoRecord, with change: TodoChange) async throws(CloudKitError) -> Record {
        try await modify(operation(replacing: record, with: change))
    }

    private func write(_ occurrence: Occurrence, base: OccurrenceRecord?) async throws(CloudKitError) -> Record {
        try await modify(operation(writing: occurrence, base: base))
    }

    /// Sends one operation; its item error is thrown like a whole-request one.
    func modify(_ operation: RecordOperation) async throws(CloudKitError) -> Record {
        let results = try await session.perform { token throws(CloudKitError) in
            try await client.modify([operation], token: token)
        }
        switch results.first {
        case .record(let record)?: return record
        case .failure(let error)?: throw error
        case .deleted?, nil:
            throw CloudKitError(.invalidResponse, reason: "records/modify answered without the record")
        }
    }
}
