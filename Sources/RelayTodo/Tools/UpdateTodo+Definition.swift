import RelayMCP

extension UpdateTodo {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "update_todo", title: "Update a to-do",
        description: """
            Changes an existing to-do (id from list_todos or add_todo). Only the fields you pass change. due \
            takes the same forms as in add_todo (YYYY-MM-DDTHH:mm in the user's time zone from get_me, \
            YYYY-MM-DD for the default time, or ISO 8601 with offset); a new due also cancels an earlier snooze. \
            notes: null clears the notes. repeat replaces the whole rule (sub-fields left out take their \
            defaults); repeat: null or {kind: "none"} makes the to-do one-off; a done one-off given a repeat is \
            pending again. status (pending, done, skipped) can be set only on one-off to-dos; for a repeating \
            to-do use complete_todo or snooze_todo. As in add_todo, a due inside quiet hours moves to their end \
            (quietHoursAdjusted), a repeat's first occurrence moves to the next day its rule lists (dueAligned), \
            a due already past is kept but will not ring (notices), and control characters in title and notes \
            are refused: tell the user about quietHoursAdjusted, dueAligned and notices. The result lists the \
            fields that changed. \
            \(UndoText.sentence)
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object(
            [
                ("id", Schema.id),
                ("title", Schema.string("A new title.", minLength: 1, maxLength: 200)),
                ("due", Schema.timeInput("A new alarm time (a repeating to-do: its first occurrence).")),
                ("notes", Schema.string("New notes; null clears them.", nullable: true, maxLength: 4000)),
                ("sound", Schema.string("A new alarm sound.", enumeration: Schema.sounds)),
                ("repeat", Schema.repeatInput(nullable: true)),
                ("status", Schema.string("One-off to-dos only.", enumeration: TodoStatus.allCases.map(\.rawValue))),
            ],
            required: ["id"], closed: true),
        outputSchema: Schema.object(
            [
                ("timeZone", Schema.timeZone),
                ("todo", Schema.todo),
                ("changed", Schema.array(of: Schema.string(), description: "The record fields that changed.")),
                ("quietHoursAdjusted", Schema.quietHoursAdjusted),
                ("dueAligned", Schema.dueAligned),
                ("notices", Schema.notices),
                ("undo", UndoText.schema),
            ],
            required: ["timeZone", "todo", "changed", "undo"]),
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false))
}
