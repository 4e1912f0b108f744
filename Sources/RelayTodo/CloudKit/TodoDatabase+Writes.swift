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
        /// Saved; the to-do as it now is (after a merge: the server copy with this call's fields).
        case saved(Todo)
        /// The server copy turned out to be soft-deleted already; nothing was written.
        case deleted(Todo)
    }

    /// Creates `todo` (a new lowercase UUID record name). Creates the zone first if the app never did. A
    /// failure that may have come after the write landed (a timeout, a 5xx) is checked with a lookup, so a
    /// retried call cannot leave two copies.
    func create(_ todo: Todo) async throws(CloudKitError) {
        let operation = RecordOperation(.create, TodoRecord(creating: todo).record(schema: schema.todo))
        do throws(CloudKitError) {
            _ = try await modify(operation)
        } catch {
            switch error.kind {
            case .zoneNotFound:
                _ = try await session.perform { token throws(CloudKitError) in
                    try await client.createZone(token: token)
                }
                _ = try await modify(operation)
            case .unavailable:
                let landed = (try? await lookup([todo.id]))?[todo.id] != nil
                if !landed { throw error }
            default: throw error
            }
        }
    }

    /// Saves `change` onto `base` (the record it was computed from), merging once on CONFLICT.
    func save(_ change: TodoChange, onto base: TodoRecord) async throws -> Saved {
        guard !change.isEmpty else { return .saved(change.todo) }
        do throws(CloudKitError) {
            _ = try await replace(base, with: change)
            return .saved(change.todo)
        } catch {
            // Changed (or purged) by another writer since it was read: merge below.
            guard error.kind == .conflict || error.kind == .notFound else { throw error }
        }
        let id = change.todo.id
        guard let record = try await lookup([id])[id], let server = try todo(record) else {
            throw TodoError.notFound(id: id)
        }
        switch Merge.reapply(change, onto: Todo(record: server)) {
        case .serverNewer: throw TodoError.conflict
        case .deleted(let todo): return .deleted(todo)
        case .save(let merged):
            guard !merged.isEmpty else { return .saved(merged.todo) }
            do throws(CloudKitError) {
                _ = try await replace(server, with: merged)
                return .saved(merged.todo)
            } catch {
                throw error.kind == .conflict || error.kind == .notFound ? TodoError.conflict : error
            }
        }
    }

    /// Saves `occurrence` (create, or replace `base`), merging once on CONFLICT: last writer wins on
    /// `changedAt`.
    func save(_ occurrence: Occurrence, base: OccurrenceRecord?) async throws {
        do throws(CloudKitError) {
            _ = try await write(occurrence, base: base)
            return
        } catch {
            // Written by another device since it was read: merge below.
            guard error.kind == .conflict || error.kind == .notFound else { throw error }
        }
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
            _ = try await write(occurrence, base: server)
        } catch {
            throw error.kind == .conflict || error.kind == .notFound ? TodoError.conflict : error
        }
    }

    private func replace(_ record: TodoRecord, with change: TodoChange) async throws(CloudKitError) -> Record {
        try await modify(
            RecordOperation(.replace, record.applying(change.fields, from: change.todo).record(schema: schema.todo)))
    }

    private func write(_ occurrence: Occurrence, base: OccurrenceRecord?) async throws(CloudKitError) -> Record {
        let record = OccurrenceRecord(occurrence, base: base).record(schema: schema.occurrence)
        return try await modify(RecordOperation(base == nil ? .create : .replace, record))
    }

    /// Sends one operation; its item error is thrown like a whole-request one.
    private func modify(_ operation: RecordOperation) async throws(CloudKitError) -> Record {
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
