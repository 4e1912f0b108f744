import Foundation
import RelayCloudKit
import RelayJSON
import RelayMCP

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

extension SnoozeTodos {
    /// `snooze_todos`: like `complete_todos`, with `snooze_todo`'s rule for each.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        try await BatchStep.runDays(try parse(arguments), database, now) { request, base, current, found in
            switch try SnoozeTodo.apply(request, current: current, account: found.account, now: now).outcome {
            case .updated(let change): return .write(.change(change, base: base, deleting: false))
            case .occurrence(_, let occurrence):
                return .write(.occurrence(occurrence, base: try found.occurrence(occurrence.recordName)))
            }
        }
    }
}
