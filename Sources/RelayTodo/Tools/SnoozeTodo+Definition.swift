import RelayMCP

extension SnoozeTodo {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "snooze_todo", title: "Snooze",
        description: """
            Postpones a to-do's alarm as the app's snooze does: it stops and rings again at until. until takes \
            the same forms as add_todo's due (YYYY-MM-DDTHH:mm in the user's time zone from get_me, YYYY-MM-DD \
            for the default time, or ISO 8601 with offset), must be in the future and after the alarm it \
            postpones: a snooze never makes it ring earlier (change due with update_todo for that). A one-off \
            to-do stays pending (a done one is reopened). For a repeating to-do only one day's occurrence is \
            snoozed: occurrenceDate (YYYY-MM-DD) picks a day it repeats on, default today in the to-do's time \
            zone. If until is at or after the next occurrence's alarm, or is a later day given as YYYY-MM-DD, \
            that day is marked skipped instead (as "tomorrow" in the app: the next occurrence rings anyway) and \
            snoozedUntil is null. A time inside the user's quiet hours is moved to their end and the result has \
            quietHoursAdjusted; a time the clocks skip or show twice (daylight saving) gives notices. Tell the \
            user the result's message and notices. The alarm's buttons in the app: "done" is \
            complete_todo; "10 minutes" and "1 hour" are snooze_todo with until = now (get_me) plus 10 minutes \
            or 1 hour, as YYYY-MM-DDTHH:mm; "tomorrow" is snooze_todo with until = tomorrow's date as \
            YYYY-MM-DD (a repeat: today's occurrence is skipped; a one-off: it rings tomorrow at the default \
            time). \
            \(UndoText.sentence)
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
                ("snoozedUntil", Schema.string("When it rings again; null when the day was skipped.", nullable: true)),
                ("message", Schema.string("What happened, for the user.")),
                ("quietHoursAdjusted", Schema.quietHoursAdjusted),
                ("notices", Schema.notices),
                ("undo", UndoText.schema),
            ],
            required: ["timeZone", "todo", "occurrence", "snoozedUntil", "message", "undo"]),
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false))
}
