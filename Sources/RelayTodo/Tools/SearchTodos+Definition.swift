import RelayMCP

extension SearchTodos {
    /// The tool's name, title, schemas and hints. The name and the single `query` string are what ChatGPT's
    /// deep research and company knowledge look for (OpenAI, "Building MCP servers for ChatGPT and API
    /// integrations"; Apps SDK, "Company knowledge compatibility": the input is checked, so it stays exactly
    /// that).
    package static let definition = ToolDefinition(
        name: "search", title: "Search to-dos",
        description: """
            Searches the user's to-dos by words in their titles and notes. query: one or a few key words such \
            as "dentist" or "牛乳", not a question: every word must appear in the title or the notes (anywhere \
            in the text, ignoring case and full- or half-width forms). Returns at most \(maxResults) results, \
            best first: to-dos with every word in the title, then to-dos still to do, soonest first, then \
            finished ones. Each result has id (pass it to fetch for the whole to-do), title, text (one line: \
            when it is due or how it repeats, in the user's time zone) and url (always empty: a to-do has no \
            web page). Deleted to-dos never appear. To see to-dos by date, use list_todos. complete is false \
            only when iCloud held more than could be read; then warning says what may be missing: tell the user.
            """,
        requiredScopes: [TodoScope.read],
        inputSchema: Schema.object(
            [("query", Schema.string("Key words to find in to-do titles and notes."))], required: ["query"],
            closed: true),
        outputSchema: Schema.object(
            [
                (
                    "results",
                    Schema.array(
                        of: Schema.object(
                            [
                                ("id", Schema.string("Pass to fetch.")), ("title", Schema.string()),
                                ("url", Schema.string("Always empty: a to-do has no web page.")),
                                ("text", Schema.string("When it is due or how it repeats.")),
                            ],
                            required: ["id", "title", "url", "text"]),
                        description: "Best first.")
                ),
                ("complete", Schema.completeness),
                ("warning", Schema.warning),
            ],
            required: ["results", "complete"]),
        annotations: ToolAnnotations(
            readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false))
}
