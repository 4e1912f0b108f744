import Foundation
import RelayCloudKit
import RelayJSON
import RelayMCP

/// `fetch`: one to-do as a document, in the shape OpenAI documents for ChatGPT's deep research and company
/// knowledge (`{id, title, text, url, metadata}`; docs/tools.md "search and fetch").
package enum FetchTodo {
    /// Validated arguments.
    package struct Request: Sendable, Equatable {
        /// The to-do.
        package var id: String

        /// A request for `id`.
        package init(id: String) { self.id = id }
    }

    /// Validates the arguments: `id` must be a record name CloudKit accepts (the shared check).
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> Request {
        let object = try ArgumentObject(arguments, field: "", allowed: ["id"])
        return Request(id: try object.id(from: "search or list_todos"))
    }

    /// The record names of the Occurrences `fetch` may show for to-do `id`, looked up in the same CloudKit call
    /// as the to-do itself: every date that can be within `TodoDocument`'s window on some clock at `now` (the
    /// to-do's zone is not known before the lookup; any zone's today is UTC's yesterday, today or tomorrow).
    package static func occurrenceNames(id: String, now: Date) -> [String] {
        let today = TimeRules.utc.today(now: now)
        return (-TodoDocument.pastDays - 1...TodoDocument.comingDays + 1).map {
            Occurrence.recordName(todoId: id, date: today.adding(days: $0))
        }
    }

    /// The result's `structuredContent` for `todo` (nil or soft-deleted → `NOT_FOUND`): `{id, title, text, url,
    /// metadata}`. `url` is empty: a to-do has no web page, and ChatGPT makes a citation only from a non-empty,
    /// user-openable URL.
    package static func result(
        _ request: Request, todo: Todo?, occurrences: [Occurrence], account: Account, now: Date
    ) throws(TodoError) -> JSONValue {
        guard let todo, !todo.isDeleted else { throw notFound }
        let document = TodoDocument(todo: todo, account: account, now: now, occurrences: occurrences)
        return [
            "id": .string(todo.id), "title": .string(document.title),
            "text": .string(document.text(occurrences: occurrences)),
            "url": "", "metadata": .object(document.metadata),
        ]
    }

    /// `NOT_FOUND`, pointing to the tool that finds ids.
    static let notFound = TodoError(
        code: .notFound, message: "No to-do with this id exists (or it was deleted). Use search to find ids.",
        field: "id")
}

extension FetchTodo {
    /// The tool's name, title, schemas and hints. The name and the single `id` string are what ChatGPT's deep
    /// research and company knowledge look for (see `SearchTodos.definition`).
    package static let definition = ToolDefinition(
        name: "fetch", title: "Read one to-do",
        description: """
            Returns one to-do as a document. id: an id from search or list_todos. The result has id, title, \
            text (the to-do in plain words: one-off or repeating, its state, due time or repeat rule in the \
            user's time zone, for a repeat the state of each day from two weeks ago to a week ahead, and the \
            notes), url (always empty: a to-do has no web page) and metadata (kind, status, timeZone, and due, \
            nextOccurrence and the other times as ISO 8601 with the user's offset). An unknown or deleted id \
            gives NOT_FOUND.
            """,
        requiredScopes: [TodoScope.read],
        inputSchema: Schema.object(
            [("id", Schema.string("The to-do's id, from search or list_todos."))], required: ["id"], closed: true),
        outputSchema: Schema.object(
            [
                ("id", Schema.string()),
                ("title", Schema.string()),
                ("text", Schema.string("The whole to-do in plain words.")),
                ("url", Schema.string("Always empty: a to-do has no web page.")),
                ("metadata", metadataSchema),
            ],
            required: ["id", "title", "text", "url", "metadata"]),
        annotations: ToolAnnotations(
            readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false))

    /// String values only, as OpenAI's example types `metadata`.
    private static let metadataSchema: JSONValue = [
        "type": "object", "additionalProperties": ["type": "string"],
        "description": .string(
            "kind, status, timeZone, source, and due, nextOccurrence, snoozedUntil, completedAt, createdAt, "
                + "changedAt (ISO 8601) and repeat (in words) when set."),
    ]
}

extension FetchTodo {
    /// `fetch`: the Account, the to-do and the Occurrences of its recent days, all in one lookup.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let snapshot = try await database.snapshot(
            id: request.id, occurrences: occurrenceNames(id: request.id, now: now))
        return try result(
            request, todo: snapshot.todo.map(Todo.init(record:)),
            occurrences: snapshot.occurrences.values.compactMap(Occurrence.init(record:)), account: snapshot.account,
            now: now)
    }
}
