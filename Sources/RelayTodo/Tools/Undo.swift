import Foundation
import RelayJSON
import RelayMCP

/// `undo`: puts back what one write (or one batch) changed, from the sealed handle its result carried
/// (`UndoHandle`, `UndoSeal`). The relay keeps nothing to do it.
package enum Undo {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "undo", title: "Undo a change",
        description: """
            Takes back one earlier change: pass the undo string from the result of add_todo, update_todo, \
            complete_todo, snooze_todo, delete_todo or a batch tool (add_todos, complete_todos, snooze_todos, \
            delete_todos), exactly as it was. An added to-do is deleted again, a deleted one comes back, a \
            completion or snooze (also of one day of a repeating to-do) is reverted, and an update's old values \
            return. One undo takes back a whole batch. Call it when the user asks to undo, revert or take back \
            something you just did; after a delete or a batch, tell the user it can be undone. It works for 24 \
            hours and only while the to-do has not changed since: if the user, the app or another device changed \
            it after your call, that to-do is left as it is and the result says what changed (CONFLICT). \
            Each to-do's outcome is in results.
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object(
            [("undo", Schema.string("The undo string of the change to take back.", minLength: 1))],
            required: ["undo"], closed: true),
        outputSchema: Schema.object(
            [
                ("results", BatchResult.schema),
                ("message", Schema.string("What happened, for the user.")),
            ],
            required: ["results", "message"]),
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false))

    /// Validates the arguments: the handle's text (opened by `UndoSeal`).
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> String {
        let object = try ArgumentObject(arguments, field: "", allowed: ["undo"])
        let text = try object.requiredString("undo")
        guard !text.isEmpty else { throw .invalidArgument("undo", "must not be empty") }
        return text
    }

    /// The result's `structuredContent`: `{results, message}`.
    package static func result(_ results: [BatchResult]) -> JSONValue {
        let undone = results.filter(\.ok).count
        let message: String
        switch (undone, results.count) {
        case (_, 0): message = "That call changed nothing, so there was nothing to undo."
        case (1, 1): message = "Undone: the to-do is back as it was before that call."
        case (let all, let count) where all == count: message = "Undone: all \(count) to-dos are back as they were."
        default:
            message =
                "Undid \(undone) of \(results.count) to-dos; the others were left as they are (see results for "
                + "why). Tell the user which."
        }
        return ["results": .array(results.map(\.json)), "message": .string(message)]
    }
}

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
