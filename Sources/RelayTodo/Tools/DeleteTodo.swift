import Foundation
import RelayCloudKit
import RelayJSON
import RelayMCP

/// `delete_todo`: a soft delete (writes `deletedAt`); the app purges the record later, the relay never does.
package enum DeleteTodo {
    /// Validated arguments.
    package struct Request: Sendable, Equatable {
        /// The to-do.
        package var id: String

        /// A request for `id`.
        package init(id: String) { self.id = id }
    }

    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "delete_todo", title: "Delete a to-do",
        description: """
            Deletes a to-do: it disappears from the app and from list_todos (the app purges it later). For a \
            repeating to-do this deletes the whole series; to finish one day use complete_todo instead. \
            Confirm with the user before deleting. An id that does not exist or was already deleted gives \
            NOT_FOUND. After deleting, tell the user it can be undone. \
            \(UndoText.sentence)
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object([("id", Schema.id)], required: ["id"], closed: true),
        outputSchema: Schema.object(
            [
                ("timeZone", Schema.timeZone),
                ("id", Schema.string()),
                ("deleted", Schema.boolean()),
                ("deletedAt", Schema.requiredInstant),
                ("undo", UndoText.schema),
            ],
            required: ["timeZone", "id", "deleted", "deletedAt", "undo"]),
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false))

    /// Validates the arguments.
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> Request {
        let object = try ArgumentObject(arguments, field: "", allowed: ["id"])
        return Request(id: try object.id())
    }

    /// The soft delete of `current` (`nil` or already deleted → `NOT_FOUND`): `deletedAt = changedAt = now`.
    package static func apply(_ request: Request, current: Todo?, now: Date) throws(TodoError) -> TodoChange {
        guard let todo = current, !todo.isDeleted else { throw .notFound(id: request.id) }
        var deleted = todo
        deleted.deletedAt = now
        return TodoChange(from: todo, to: deleted, now: now)
    }

    /// The result's `structuredContent`: `{timeZone, id, deleted: true, deletedAt}`.
    package static func result(_ change: TodoChange, account: Account) -> JSONValue {
        [
            "timeZone": .string(account.rules.zoneName), "id": .string(change.todo.id), "deleted": true,
            "deletedAt": account.rules.json(change.todo.deletedAt),
        ]
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
