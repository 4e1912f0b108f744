import RelayJSON
import RelayMCP

// The batches over ids: each id means what the single tool means for it (`Batch.perID`).

/// `complete_todos`: `complete_todo` for up to 25 ids.
package enum CompleteTodos {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "complete_todos", title: "Mark several done",
        description: """
            Marks up to 25 to-dos done in one call: ids, plus occurrenceDate as in complete_todo (for repeating \
            to-dos: that day, default today in each to-do's time zone). Each id is handled exactly as \
            complete_todo would handle it and has its result, in order: {id, ok: true}, or ok: false with error \
            {code, message}; one failing id does not stop the others. More than 25 ids is refused and nothing \
            changes. One undo takes the whole batch back: offer it.
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object(
            [
                ("ids", Batch.ids),
                ("occurrenceDate", Schema.date("Repeating to-dos: the day to mark done. Default: today.")),
            ],
            required: ["ids"], closed: true),
        outputSchema: Batch.outputSchema,
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false))

    /// Validates the arguments (`complete_todo`'s, per id).
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> [Batch.Item<CompleteTodo.Request>] {
        try Batch.perID(arguments, shared: ["occurrenceDate"]) { value throws(TodoError) in
            try CompleteTodo.parse(value)
        }
    }
}

/// `snooze_todos`: `snooze_todo` for up to 25 ids.
package enum SnoozeTodos {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "snooze_todos", title: "Snooze several",
        description: """
            Snoozes up to 25 to-dos in one call: ids, plus until and occurrenceDate as in snooze_todo (the same \
            time forms and rules: in the future, after each alarm it postpones, quiet hours, a repeating to-do's \
            day skipped when until is at or after its next occurrence). Each id is handled exactly as snooze_todo \
            would handle it and has its result, in order: {id, ok: true}, or ok: false with error {code, \
            message}; one failing id does not stop the others. More than 25 ids is refused and nothing changes. \
            One undo takes the whole batch back: offer it.
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object(
            [
                ("ids", Batch.ids),
                ("until", Schema.timeInput("When the alarms ring again; must be in the future.")),
                ("occurrenceDate", Schema.date("Repeating to-dos: the day to snooze. Default: today.")),
            ],
            required: ["ids", "until"], closed: true),
        outputSchema: Batch.outputSchema,
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false))

    /// Validates the arguments (`snooze_todo`'s, per id).
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> [Batch.Item<SnoozeTodo.Request>] {
        try Batch.perID(arguments, shared: ["until", "occurrenceDate"]) { value throws(TodoError) in
            try SnoozeTodo.parse(value)
        }
    }
}

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
