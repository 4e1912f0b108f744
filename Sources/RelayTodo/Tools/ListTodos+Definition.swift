import RelayMCP

extension ListTodos {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "list_todos", title: "List to-dos",
        description: """
            Lists the user's to-dos. Pick one day with date, or a range with from and/or to (YYYY-MM-DD, both \
            inclusive, days in the user's time zone: call get_me for today); with none of them, all dates. \
            status filters one-off to-dos: pending (default), done, skipped or all. One-off to-dos come back in \
            items, sorted by due time. Repeating to-dos are not expanded into days: they come back in repeating \
            as templates, each with its rule in words in repeatDescription (e.g. "every other week on Monday and \
            Wednesday at 07:30") and the occurrences (per-day done, skipped or snoozed records) dated in the \
            range; includeRepeating: false leaves them out. Deleted to-dos never appear. At most 200 entries \
            per call: when nextCursor is present, call again with cursor set to it and the same filters \
            (other filters with it are refused). complete is false only when iCloud held more than could be \
            read; then warning says what may be missing: tell the user. quietHours (as in get_me) is when no alarm \
            rings: a time asked inside them moves to their end.
            """,
        requiredScopes: [TodoScope.read],
        inputSchema: Schema.object(
            [
                ("date", Schema.date("One day only. Do not combine with from/to.")),
                ("from", Schema.date("First day, inclusive.")),
                ("to", Schema.date("Last day, inclusive.")),
                (
                    "status",
                    Schema.string(
                        "One-off to-dos: pending (default), done, skipped or all.",
                        enumeration: StatusFilter.allCases.map(\.rawValue))
                ),
                ("includeRepeating", Schema.boolean("Include repeating to-dos (default true).")),
                ("cursor", Schema.string("nextCursor from the previous call, for the next page.")),
            ],
            closed: true),
        outputSchema: Schema.object(
            [
                ("timeZone", Schema.timeZone),
                ("quietHours", Schema.quietHours),
                ("items", Schema.array(of: Schema.todo, description: "One-off to-dos, by due time.")),
                ("repeating", Schema.array(of: repeatingEntry, description: "Repeating to-dos, as templates.")),
                ("nextCursor", Schema.string("Present when more entries exist.")),
                ("complete", Schema.completeness),
                ("warning", Schema.warning),
            ],
            required: ["timeZone", "quietHours", "items", "repeating", "complete"]),
        annotations: ToolAnnotations(
            readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false))

    private static let repeatingEntry = Schema.object(
        Schema.todoProperties + [("occurrences", Schema.array(of: Schema.occurrence))],
        required: Schema.todoRequired + ["occurrences"])
}
