import Foundation
import RelayCloudKit
import RelayJSON
import RelayMCP

/// `get_me`: the Account and "today" in its time zone.
package enum GetMe {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "get_me", title: "Account and today",
        description: """
            Call this first, before working with dates or times. Returns the user's MustDo settings and the \
            current date and time in the user's time zone: timeZone (IANA), locale, defaultTime (the alarm time \
            used when only a date is given), quietHours ({start, end} wall-clock times during which no alarm \
            rings, or null), trialStartedAt, subscribedUntil, canAddTodos (whether add_todo is allowed, as the \
            app decided), today ({date, weekday, weekdayNumber} with 1 = Sunday … 7 = Saturday), now, and \
            defaultDueNext (when add_todo without due rings: tomorrow at the default time, moved out of quiet \
            hours). warnings lists settings the app saved that could not be used (tell the user). Turn words \
            like "today", "tomorrow" or "next Monday" into dates from this today, in this time zone, not your own.
            """,
        requiredScopes: [TodoScope.read],
        inputSchema: Schema.object([], closed: true),
        outputSchema: Schema.object(
            [
                ("timeZone", Schema.timeZone),
                ("locale", Schema.string(nullable: true)),
                ("defaultTime", Schema.string("HH:mm.")),
                ("quietHours", Schema.quietHours),
                ("trialStartedAt", Schema.instant),
                ("subscribedUntil", Schema.instant),
                ("canAddTodos", Schema.boolean()),
                (
                    "today",
                    Schema.object(
                        [
                            ("date", Schema.string("YYYY-MM-DD.")), ("weekday", Schema.string()),
                            ("weekdayNumber", Schema.integer("1 = Sunday … 7 = Saturday.", range: 1...7)),
                        ],
                        required: ["date", "weekday", "weekdayNumber"])
                ),
                ("now", Schema.requiredInstant),
                ("defaultDueNext", Schema.requiredInstant),
                ("warnings", Schema.array(of: Schema.string(), description: "Unusable settings; the defaults apply.")),
            ],
            required: [
                "timeZone", "locale", "defaultTime", "quietHours", "trialStartedAt", "subscribedUntil",
                "canAddTodos", "today", "now", "defaultDueNext", "warnings",
            ]),
        annotations: ToolAnnotations(
            readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false))

    /// Checks that no arguments were passed.
    package static func parse(_ arguments: JSONValue?) throws(TodoError) {
        _ = try ArgumentObject(arguments, field: "", allowed: [])
    }

    /// The result's `structuredContent`.
    package static func result(account: Account, now: Date) -> JSONValue {
        let rules = account.rules
        let today = rules.today(now: now)
        return [
            "timeZone": .string(rules.zoneName),
            "locale": account.locale.map(JSONValue.string) ?? .null,
            "defaultTime": .string(rules.defaultTime.description),
            "quietHours": account.quietHoursJSON,
            "trialStartedAt": rules.json(account.trialStartedAt),
            "subscribedUntil": rules.json(account.subscribedUntil),
            "canAddTodos": .bool(account.canAddTodos(now: now)),
            "today": [
                "date": .string(today.description), "weekday": .string(today.weekday.englishName),
                "weekdayNumber": .int(today.weekday.rawValue),
            ],
            "now": .string(rules.format(now)),
            "defaultDueNext": .string(rules.format(account.defaultDue(now: now))),
            "warnings": .array(account.warnings.map(JSONValue.string)),
        ]
    }
}

extension GetMe {
    /// `get_me`: one lookup of the Account record.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        try parse(arguments)
        return result(account: try await database.snapshot().account, now: now)
    }
}
