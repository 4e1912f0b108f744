import RelayJSON
import RelayMCP

/// The batch tools (issue 44): `add_todos`, `complete_todos`, `snooze_todos`, `delete_todos`. Each item means
/// what the single tool means for it; all are read in one CloudKit lookup and written in one `records/modify`
/// (CloudKit takes up to 200 operations per request, `reference/cloudkit-ws.md` §6, so 25 items and their
/// Occurrences fit one), with a result per item and one undo handle for the whole batch.
package enum Batch {
    /// The most items one call takes. A longer list is refused before anything is read or written.
    package static let maxItems = 25

    /// One item of a batch as parsed: its request, or why it was refused before any I/O.
    package enum Item<Request: Sendable>: Sendable {
        /// Valid.
        case valid(Request)
        /// Refused (an `add_todos` item without an id has `id` nil).
        case refused(id: String?, TodoError)
    }

    /// The list member `key` (`items` or `ids`): present, an array of 1…25.
    static func list(_ object: ArgumentObject, _ key: String) throws(TodoError) -> [JSONValue] {
        guard let list = try object.array(key) else { throw .invalidArgument(key, "is required") }
        guard !list.isEmpty else { throw .invalidArgument(key, "must list at least one") }
        guard list.count <= maxItems else {
            throw .invalidArgument(
                key,
                "lists \(list.count); at most \(maxItems) per call, and nothing was changed. Split it into calls of "
                    + "\(maxItems) or fewer.")
        }
        return list
    }

    /// Parses `ids` and the other arguments shared by every id with the single tool's `parse`, once per id: an
    /// argument that is wrong for every id refuses the call; an id that is malformed or listed twice refuses that
    /// item only.
    static func perID<Request>(
        _ arguments: JSONValue?, shared: Set<String>, parse: (JSONValue) throws(TodoError) -> Request
    ) throws(TodoError) -> [Item<Request>] {
        let object = try ArgumentObject(arguments, field: "", allowed: shared.union(["ids"]))
        let ids = try list(object, "ids")
        var seen: Set<String> = []
        var items: [Item<Request>] = []
        for (index, value) in ids.enumerated() {
            guard let id = value.stringValue else { throw .invalidArgument("ids[\(index)]", "must be a string") }
            var single = object.members
            single["ids"] = nil
            single["id"] = .string(id)
            do throws(TodoError) {
                let request = try parse(.object(single))
                guard seen.insert(id).inserted else {
                    items.append(.refused(id: id, .invalidArgument("ids[\(index)]", "is listed twice")))
                    continue
                }
                items.append(.valid(request))
            } catch  where error.field == "id" {
                items.append(
                    .refused(
                        id: id,
                        TodoError(
                            code: error.code, message: "ids[\(index)]" + error.message.dropFirst("id".count),
                            field: "ids[\(index)]")))
            }
        }
        return items
    }

    /// The output schema every batch tool shares: `{results, undo}`.
    static let outputSchema = Schema.object(
        [("results", BatchResult.schema), ("undo", UndoText.schema)], required: ["results", "undo"])

    /// The result's `structuredContent`: `{results, undo}`.
    static func result(_ results: [BatchResult], undo: String) -> JSONValue {
        ["results": .array(results.map(\.json)), "undo": .string(undo)]
    }

    /// The `ids` input.
    static let ids: JSONValue = [
        "type": "array", "items": Schema.id, "minItems": 1, "maxItems": .int(maxItems),
        "description": "The to-dos' ids (from list_todos or add_todo), at most 25.",
    ]
}

/// What the write tools say about their `undo` member.
enum UndoText {
    /// The `undo` member of a write's result.
    static let schema = Schema.string(
        "Pass to the undo tool to take this change back (within 24 hours, while the to-do is unchanged).")

    /// The sentence every write tool's description ends with.
    static let sentence =
        "The result has undo: if the user wants this taken back, call undo with it (works for 24 hours while the "
        + "to-do is unchanged)."
}

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
