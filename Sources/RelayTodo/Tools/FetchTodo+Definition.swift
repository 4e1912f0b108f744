import RelayJSON
import RelayMCP

extension FetchTodo {
    /// The tool's name, title, schemas and hints. The name and the single `id` string are what ChatGPT's deep
    /// research and company knowledge look for (see `SearchTodos.definition`).
    package static let definition = ToolDefinition(
        name: "fetch", title: "Read one to-do",
        description: """
            Returns one to-do as a document. id: an id from search or list_todos. The result has id, title, \
            text (the to-do in plain words: one-off or repeating, its state, due time or repeat rule in the \
            user's time zone, for a repeat the state of each day from two weeks ago to a week ahead, and the \
            notes), url (always empty: a to-do has no web page) and metadata (kind, status, timeZone, and due, \
            nextOccurrence and the other times as ISO 8601 with the user's offset). An unknown or deleted id \
            gives NOT_FOUND.
            """,
        requiredScopes: [TodoScope.read],
        inputSchema: Schema.object(
            [("id", Schema.string("The to-do's id, from search or list_todos."))], required: ["id"], closed: true),
        outputSchema: Schema.object(
            [
                ("id", Schema.string()),
                ("title", Schema.string()),
                ("text", Schema.string("The whole to-do in plain words.")),
                ("url", Schema.string("Always empty: a to-do has no web page.")),
                ("metadata", metadataSchema),
            ],
            required: ["id", "title", "text", "url", "metadata"]),
        annotations: ToolAnnotations(
            readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false))

    /// String values only, as OpenAI's example types `metadata`.
    private static let metadataSchema: JSONValue = [
        "type": "object", "additionalProperties": ["type": "string"],
        "description": .string(
            "kind, status, timeZone, source, and due, nextOccurrence, snoozedUntil, completedAt, createdAt, "
                + "changedAt (ISO 8601) and repeat (in words) when set."),
    ]
}
