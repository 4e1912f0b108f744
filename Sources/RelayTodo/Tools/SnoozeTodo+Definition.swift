import RelayMCP

extension SnoozeTodo {
    /// The tool's name, title, schemas and hints.
    public static let definition = ToolDefinition(
        name: "snooze_todo", title: "Snooze",
        description: """
            Postpones a to-do's alarm: it does not ring again until the given time. until takes the same forms \
            as add_todo's due (YYYY-MM-DDTHH:mm in the user's time zone from get_me, YYYY-MM-DD for the default \
            time, or ISO 8601 with offset) and must be in the future. A one-off to-do stays pending (a done one \
            is reopened). For a repeating to-do only one day's occurrence is snoozed: occurrenceDate \
            (YYYY-MM-DD) picks it, default today in the to-do's time zone. A time inside the user's quiet hours \
            is moved to their end and the result has quietHoursAdjusted: tell the user.
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object(
            [
                ("id", Schema.id),
                ("until", Schema.timeInput("When the alarm rings again; must be in the future.")),
                ("occurrenceDate", Schema.date("Repeating to-dos: the day to snooze. Default: today.")),
            ],
            required: ["id", "until"], closed: true),
        outputSchema: Schema.object(
            [
                ("timeZone", Schema.timeZone),
                ("todo", Schema.todo),
                ("occurrence", Schema.nullable(Schema.occurrence)),
                ("snoozedUntil", Schema.requiredInstant),
                ("quietHoursAdjusted", Schema.quietHoursAdjusted),
            ],
            required: ["timeZone", "todo", "occurrence", "snoozedUntil"]),
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false))
}
