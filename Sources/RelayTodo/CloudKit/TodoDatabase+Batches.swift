import Foundation
import RelayCloudKit

/// Batch writes (issue 44): every item's record in one `records/modify` (`atomic: false`, so each item succeeds
/// or fails on its own), then the single tools' recovery for the items that need it: a CONFLICT merges that item
/// as `save` would (one lookup and one write more, for that item only).
extension TodoDatabase {
    /// One record a batch writes.
    enum BatchWrite {
        /// A new to-do (`add_todos`).
        case create(Todo)
        /// A change to an existing to-do, computed from `base`. `deleting`: the call is a delete, so a to-do the
        /// merge finds deleted already counts as done (as `delete_todo` says).
        case change(TodoChange, base: TodoRecord, deleting: Bool)
        /// One day of a repeating to-do, written over `base` (nil: the day has no record yet).
        case occurrence(Occurrence, base: OccurrenceRecord?)

        /// The to-do it is about.
        var todoId: String {
            switch self {
            case .create(let todo): todo.id
            case .change(let change, _, _): change.todo.id
            case .occurrence(let occurrence, _): occurrence.todoId
            }
        }
    }

    /// How one write of a batch ended: what undo needs (nil: nothing written, e.g. deleted meanwhile), or why not.
    typealias BatchOutcome = Result<UndoHandle.Entry?, any Error>

    /// The Account and the records named `names` (to-dos and Occurrences), in one lookup.
    func batchSnapshot(_ names: [String]) async throws(CloudKitError) -> (account: Account, found: [String: Record]) {
        let accountName = schema.account.recordName
        var all = [accountName]
        for name in names where !all.contains(name) { all.append(name) }
        let found = try await lookup(all)
        return (account(found[accountName]), found)
    }

    /// Writes `writes` (one per to-do) in one `records/modify`; the outcome of each, by to-do id.
    func write(_ writes: [BatchWrite]) async throws -> [String: BatchOutcome] {
        guard !writes.isEmpty else { return [:] }
        let operations = writes.map(operation)
        let onlyCreates = writes.allSatisfy { if case .create = $0 { true } else { false } }
        var results: [RecordResult]
        do throws(CloudKitError) {
            results = try await modifyAll(operations)
            if onlyCreates, results.contains(where: { $0.error?.kind == .zoneNotFound }) {
                throw CloudKitError(.zoneNotFound, reason: "the zone does not exist yet")
            }
        } catch {
            switch error.kind {
            case .zoneNotFound where onlyCreates:
                // The app never synced: create the zone, as `create` does, and send the batch once more.
                _ = try await session.perform { token throws(CloudKitError) in
                    try await client.createZone(token: token)
                }
                results = try await modifyAll(operations)
            case .unavailable where onlyCreates:
                // The request may have landed: the ones that exist now were written (none twice).
                let names = operations.map(\.record.recordName)
                guard let landed = try? await lookup(names) else { throw error }
                results = names.map { name in
                    landed[name].map(RecordResult.record)
                        ?? .failure(CloudKitError(.unavailable, reason: "not written", recordName: name))
                }
            default: throw error
            }
        }
        var byName: [String: RecordResult] = [:]
        for result in results { if let name = result.recordName { byName[name] = result } }
        var outcomes: [String: BatchOutcome] = [:]
        for (write, operation) in zip(writes, operations) {
            outcomes[write.todoId] = await outcome(of: write, byName[operation.record.recordName])
        }
        return outcomes
    }

    /// What `result` means for `write`; a CONFLICT is merged as the single tools merge.
    private func outcome(of write: BatchWrite, _ result: RecordResult?) async -> BatchOutcome {
        switch result {
        case .record(let after)?:
            switch write {
            case .create: return .success(undoEntry(added: after))
            case .change(let change, let base, _):
                return .success(undoEntry(restoring: change.fields, of: base, after: after))
            case .occurrence(_, let base): return .success(undoEntry(occurrence: after, before: base))
            }
        case .failure(let error)? where error.kind == .conflict || error.kind == .notFound:
            do {
                switch write {
                case .create: return .failure(error)
                case .change(let change, _, let deleting):
                    switch try await merge(change) {
                    case .saved(_, let entry): return .success(entry)
                    case .deleted:
                        return deleting ? .success(nil) : .failure(TodoError.notFound(id: change.todo.id))
                    }
                case .occurrence(let occurrence, _): return .success(try await merge(occurrence))
                }
            } catch {
                return .failure(error)
            }
        case .failure(let error)?: return .failure(error)
        case .deleted?, nil:
            return .failure(CloudKitError(.invalidResponse, reason: "records/modify answered without the record"))
        }
    }

    private func operation(_ write: BatchWrite) -> RecordOperation {
        switch write {
        case .create(let todo): RecordOperation(.create, TodoRecord(creating: todo).record(schema: schema.todo))
        case .change(let change, let base, _): operation(replacing: base, with: change)
        case .occurrence(let occurrence, let base): operation(writing: occurrence, base: base)
        }
    }

    private func modifyAll(_ operations: [RecordOperation]) async throws(CloudKitError) -> [RecordResult] {
        try await session.perform { token throws(CloudKitError) in
            try await client.modify(operations, token: token)
        }
    }
}
