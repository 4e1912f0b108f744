import RelayMCP

extension CompleteTodo {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "complete_todo", title: "Mark done",
        description: """
            Marks a to-do done, which stops its alarm. A one-off to-do becomes done and a pending snooze of it is \
            cancelled. For a repeating to-do only one day's occurrence is marked done and the repeat continues: \
            occurrenceDate (YYYY-MM-DD) picks the day, default today in the to-do's time zone; it must be a day \
            the to-do repeats on (otherwise INVALID_ARGUMENT names the nearest ones) and is ignored for one-off \
            to-dos. Completing something that is already done succeeds and says so (alreadyDone). \
            \(UndoText.sentence)
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object(
            [
                ("id", Schema.id),
                ("occurrenceDate", Schema.date("Repeating to-dos: the day to mark done. Default: today.")),
            ],
            required: ["id"], closed: true),
        outputSchema: Schema.object(
            [
                ("timeZone", Schema.timeZone),
                ("todo", Schema.todo),
                ("occurrence", Schema.nullable(Schema.occurrence)),
                ("alreadyDone", Schema.boolean()),
                ("message", Schema.string()),
                ("undo", UndoText.schema),
            ],
            required: ["timeZone", "todo", "occurrence", "alreadyDone", "message", "undo"]),
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false))
}
