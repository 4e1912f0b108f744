import Foundation
import RelayCloudKit
import RelayJSON

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
