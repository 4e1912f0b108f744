import Foundation
import RelayCloudKit
import RelayJSON
import RelayMCP

/// `add_todos`: up to 25 to-dos, each shaped like `add_todo`'s arguments.
package enum AddTodos {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "add_todos", title: "Add several to-dos",
        description: """
            Adds up to 25 to-dos in one call (items, each exactly like add_todo's arguments; the same rules for \
            due, repeat, quiet hours and plain text apply to each). Use it instead of calling add_todo several \
            times. Each item has its result, in order: {id, ok: true}, or ok: false with error {code, message} \
            (a refused item does not stop the others). More than 25 items is refused and nothing is added. Fails \
            with PAYMENT_REQUIRED, adding nothing, when the app does not allow adding (get_me's canAddTodos is \
            false). Read the added to-dos with list_todos to tell the user their times. One undo takes the whole \
            batch back: offer it.
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object(
            [
                (
                    "items",
                    [
                        "type": "array", "items": AddTodo.definition.inputSchema, "minItems": 1,
                        "maxItems": .int(Batch.maxItems),
                        "description": "The to-dos to add, each shaped like add_todo's arguments.",
                    ]
                )
            ],
            required: ["items"], closed: true),
        outputSchema: Batch.outputSchema,
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false))

    /// Validates the arguments: each item with `add_todo`'s rules; a refused item names its index.
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> [Batch.Item<AddTodo.Request>] {
        let object = try ArgumentObject(arguments, field: "", allowed: ["items"])
        var items: [Batch.Item<AddTodo.Request>] = []
        for (index, value) in try Batch.list(object, "items").enumerated() {
            do throws(TodoError) {
                guard value.objectValue != nil else { throw .invalidArgument("items[\(index)]", "must be an object") }
                items.append(.valid(try AddTodo.parse(value)))
            } catch {
                let field = error.field.map { $0.hasPrefix("items[") ? $0 : "items[\(index)].\($0)" }
                let message = error.message.hasPrefix("items[") ? error.message : "items[\(index)]: \(error.message)"
                items.append(.refused(id: nil, TodoError(code: error.code, message: message, field: field)))
            }
        }
        return items
    }
}

extension AddTodos {
    /// `add_todos`: the Account (the entitlement hint decides for the whole batch, as the app decides when adding),
    /// then one `records/modify` creating every valid item.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let items = try parse(arguments)
        let account = try await database.snapshot().account
        guard account.canAddTodos(now: now) else { throw TodoError.paymentRequired }
        var plan: [BatchStep] = []
        for item in items {
            switch item {
            case .refused(let id, let error): plan.append(.done(.failed(id, error)))
            case .valid(let request):
                do throws(TodoError) {
                    let created = try AddTodo.apply(request, account: account, now: now, newID: UUID().uuidString)
                    plan.append(.write(.create(created.todo)))
                } catch {
                    plan.append(.done(.failed(nil, error)))
                }
            }
        }
        return try await BatchStep.finish(plan, database, now)
    }
}
