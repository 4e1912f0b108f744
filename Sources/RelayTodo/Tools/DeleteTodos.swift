import Foundation
import RelayCloudKit
import RelayJSON
import RelayMCP

/// `delete_todos`: `delete_todo` for up to 25 ids.
package enum DeleteTodos {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "delete_todos", title: "Delete several to-dos",
        description: """
            Deletes up to 25 to-dos in one call, as delete_todo does (a repeating to-do's whole series). Confirm \
            with the user before deleting. Each id has its result, in order: {id, ok: true}, or ok: false with \
            error {code, message} (NOT_FOUND for an id that does not exist or was already deleted); one failing \
            id does not stop the others. More than 25 ids is refused and nothing is deleted. One undo brings the \
            whole batch back: tell the user it can be undone.
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object([("ids", Batch.ids)], required: ["ids"], closed: true),
        outputSchema: Batch.outputSchema,
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false))

    /// Validates the arguments (`delete_todo`'s, per id).
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> [Batch.Item<DeleteTodo.Request>] {
        try Batch.perID(arguments, shared: []) { value throws(TodoError) in try DeleteTodo.parse(value) }
    }
}

extension DeleteTodos {
    /// `delete_todos`: one lookup, one `records/modify` of soft deletes.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let items = try parse(arguments)
        let (_, found) = try await database.batchSnapshot(BatchStep.valid(items).map(\.id))
        let plan = items.map { item in
            BatchStep.plan(item, id: \.id) { request throws in
                let (base, current) = try database.batchTodo(request.id, found)
                let change = try DeleteTodo.apply(request, current: current, now: now)
                return .write(.change(change, base: base, deleting: true))
            }
        }
        return try await BatchStep.finish(plan, database, now)
    }
}
