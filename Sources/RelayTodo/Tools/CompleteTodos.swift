import Foundation
import RelayCloudKit
import RelayJSON
import RelayMCP

/// `complete_todos`: `complete_todo` for up to 25 ids.
package enum CompleteTodos {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "complete_todos", title: "Mark several done",
        description: """
            Marks up to 25 to-dos done in one call: ids, plus occurrenceDate as in complete_todo (for repeating \
            to-dos: that day, default today in each to-do's time zone). Each id is handled exactly as \
            complete_todo would handle it and has its result, in order: {id, ok: true}, or ok: false with error \
            {code, message}; one failing id does not stop the others. More than 25 ids is refused and nothing \
            changes. One undo takes the whole batch back: offer it.
            """,
        requiredScopes: [TodoScope.write],
        inputSchema: Schema.object(
            [
                ("ids", Batch.ids),
                ("occurrenceDate", Schema.date("Repeating to-dos: the day to mark done. Default: today.")),
            ],
            required: ["ids"], closed: true),
        outputSchema: Batch.outputSchema,
        annotations: ToolAnnotations(
            readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false))

    /// Validates the arguments (`complete_todo`'s, per id).
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> [Batch.Item<CompleteTodo.Request>] {
        try Batch.perID(arguments, shared: ["occurrenceDate"]) { value throws(TodoError) in
            try CompleteTodo.parse(value)
        }
    }
}

extension CompleteTodos {
    /// `complete_todos`: one lookup (Account, to-dos, each one's candidate Occurrences), one `records/modify`.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        try await BatchStep.runDays(try parse(arguments), database, now) { request, base, current, found in
            let date = CompleteTodo.occurrenceDate(request, todo: current, account: found.account, now: now)
            let stored = try found.occurrence(Occurrence.recordName(todoId: current.id, date: date))
            switch try CompleteTodo.apply(
                request, current: current, existing: stored.flatMap(Occurrence.init(record:)), account: found.account,
                now: now)
            {
            case .updated(let change): return .write(.change(change, base: base, deleting: false))
            case .occurrence(_, let occurrence): return .write(.occurrence(occurrence, base: stored))
            case .alreadyDone: return .done(.ok(request.id))
            }
        }
    }
}
