import Foundation
import RelayJSON

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
