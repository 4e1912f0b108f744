import Foundation

/// The merge after a CloudKit CONFLICT (the app's sync rule): fetch the server copy, re-apply only the
/// fields this call changes if this call's `changedAt` is newer than the server copy's, save once more.
/// A second CONFLICT is a `TodoError.conflict`.
package enum Merge {
    /// What to do with a to-do write that hit a CONFLICT.
    package enum Outcome: Sendable, Equatable {
        /// Save this (server copy plus our fields) with the server copy's change tag.
        case save(TodoChange)
        /// The server copy changed later than this call: keep it; the call fails with CONFLICT.
        case serverNewer(Todo)
        /// The server copy is soft-deleted: NOT_FOUND (a delete call has nothing left to do and succeeds).
        case deleted(Todo)
    }

    /// Merges `change` (computed against an older copy) into `server`.
    package static func reapply(_ change: TodoChange, onto server: Todo) -> Outcome {
        if server.isDeleted { return .deleted(server) }
        // A non-empty change always carries its changedAt; without one there is nothing to win with.
        guard let ours = change.todo.changedAt else { return .serverNewer(server) }
        if let theirs = server.changedAt, theirs >= ours { return .serverNewer(server) }
        let merged = server.copying(change.fields.subtracting([.changedAt]), from: change.todo)
        // Fields the server copy already has need not be written again.
        return .save(TodoChange(from: server, to: merged, now: ours))
    }

    /// What to do with an Occurrence write that hit a CONFLICT (last writer wins on `changedAt`).
    package enum OccurrenceOutcome: Sendable, Equatable {
        /// Save ours with the server copy's change tag.
        case save(Occurrence)
        /// The server's state is newer: keep it; the call fails with CONFLICT.
        case serverNewer(Occurrence)
    }

    /// Merges our occurrence into the server's copy of the same record.
    package static func reapply(_ occurrence: Occurrence, onto server: Occurrence) -> OccurrenceOutcome {
        if let theirs = server.changedAt, theirs >= (occurrence.changedAt ?? .distantPast) {
            return .serverNewer(server)
        }
        return .save(occurrence)
    }
}
