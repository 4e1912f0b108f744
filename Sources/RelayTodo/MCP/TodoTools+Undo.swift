import Foundation
import RelayJSON

extension Undo {
    /// `undo`: opens the handle (no I/O), then one lookup and one `records/modify` for every record it names. A
    /// handle of one to-do that cannot be undone is the call's error; a batch's answer lists each to-do.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let handle = try database.undoSeal.open(try parse(arguments), now: now)
        guard !handle.entries.isEmpty else { return result([]) }
        let undone = try await database.undo(handle.entries, now: now)
        if undone.count == 1, let error = undone[0].error { throw error }
        return result(undone.map { item in item.error.map { .failed(item.todoId, $0) } ?? .ok(item.todoId) })
    }
}
