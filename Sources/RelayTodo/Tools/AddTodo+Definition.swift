import RelayMCP

extension AddTodo {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "add_todo", title: "Add a to-do",
        description: """
            Adds a to-do to the user's MustDo app; its alarm rings on the iPhone at the due time until the \
            user marks it done. For a simple to-do pass only title. Pass due only when the user names a time \
            ("tomorrow 9:00", "today 15:00"); if they name only a day, pass YYYY-MM-DD and it rings at their \
            default time. YYYY-MM-DDTHH:mm is wall-clock time in the user's time zone (call get_me first). \
            Without due it rings at get_me's defaultDueNext. For a repeating to-do, due is the first occurrence \
            and sets the time of day: "monthly on the 5th" needs due on a 5th, yearly uses due's month and day; \
            a due on a day the rule does not list (a Tuesday for "Mondays and Wednesdays") moves to the next day \
            it does (dueAligned). A due inside the user's quiet hours moves to their end (quietHoursAdjusted). A \
            due already past is saved but will not ring (notices). Tell the user about quietHoursAdjusted, \
            dueAligned and notices. title and notes are plain text: control characters are refused (notes may \
            have line breaks). Fails with PAYMENT_REQUIRED when the app does not allow adding (get_me's \
            canAddTodos is false). \
            \(UndoText.sentence)
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object(
            [
                ("title", Schema.string("What to do, in the user's words.", minLength: 1, maxLength: 200)),
                ("due", Schema.timeInput("When the alarm rings. Leave out for tomorrow at the default time.")),
                ("notes", Schema.string("Optional details.", maxLength: 4000)),
                ("sound", Schema.string("Alarm sound. Default: default.", enumeration: Schema.sounds)),
                ("repeat", Schema.repeatInput(nullable: false)),
            ],
            required: ["title"], closed: true),
        outputSchema: Schema.object(
            [
                ("timeZone", Schema.timeZone),
                ("todo", Schema.todo),
                ("quietHoursAdjusted", Schema.quietHoursAdjusted),
                ("dueAligned", Schema.dueAligned),
                ("notices", Schema.notices),
                ("undo", UndoText.schema),
            ],
            required: ["timeZone", "todo", "undo"]),
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false))
}
