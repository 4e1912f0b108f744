import Foundation
import RelayJSON

/// `list_todos`: one-off to-dos by due date and status, repeating ones as templates with their Occurrences.
package enum ListTodos {
    /// The `status` filter (one-off to-dos only).
    package enum StatusFilter: String, Sendable, CaseIterable {
        case pending
        case done
        case skipped
        case all
    }

    /// Validated arguments.
    package struct Request: Sendable, Equatable {
        /// First day, inclusive, in the Account zone (`date` sets both ends).
        package var from: LocalDate?
        /// Last day, inclusive.
        package var to: LocalDate?
        /// Default pending.
        package var status: StatusFilter
        /// Default true.
        package var includeRepeating: Bool
        /// Where the previous page ended.
        package var cursor: ListCursor?

        /// A request with every part given.
        package init(
            from: LocalDate? = nil, to: LocalDate? = nil, status: StatusFilter = .pending,
            includeRepeating: Bool = true, cursor: ListCursor? = nil
        ) {
            self.from = from
            self.to = to
            self.status = status
            self.includeRepeating = includeRepeating
            self.cursor = cursor
        }

        /// The filters as one string (`from~to~status~includeRepeating`), carried in the cursor so that a cursor
        /// is only accepted with the filters that made it; `date` is the same as `from` and `to` on that day.
        package var filterKey: String {
            "\(from?.description ?? "")~\(to?.description ?? "")~\(status.rawValue)~\(includeRepeating ? 1 : 0)"
        }

        /// The instants that one-off due times must fall in: from the start of `from` to the start of the day
        /// after `to` in the Account zone (nil ends are open). For narrowing the CloudKit query on `dueAt`.
        package func dueRange(account: Account) -> (start: Date?, end: Date?) {
            let midnight = LocalTime(hour: 0, minute: 0)!
            return (
                from.map { account.rules.instant(date: $0, time: midnight) },
                to.map { account.rules.instant(date: $0.adding(days: 1), time: midnight) }
            )
        }
    }

    /// A repeating to-do and its Occurrences in range, oldest first.
    package struct RepeatingEntry: Sendable, Equatable {
        /// The template.
        package let todo: Todo
        /// Its Occurrence records within the range.
        package let occurrences: [Occurrence]
    }

    /// One page of results.
    package struct Page: Sendable, Equatable {
        /// One-off to-dos, by due time.
        package let items: [Todo]
        /// Repeating templates, by first due time.
        package let repeating: [RepeatingEntry]
        /// Pass back as `cursor` for the next page; nil on the last page.
        package let nextCursor: String?
    }

    /// Validates the arguments: `date` excludes `from`/`to`, `from` must not be after `to`, a `cursor` must come
    /// from a call with the same filters.
    package static func parse(_ arguments: JSONValue?, seal: CursorSeal = .process) throws(TodoError) -> Request {
        let object = try ArgumentObject(
            arguments, field: "", allowed: ["date", "from", "to", "status", "includeRepeating", "cursor"])
        var request = Request(from: try object.date("from"), to: try object.date("to"))
        if let date = try object.date("date") {
            if request.from != nil || request.to != nil {
                throw .invalidArgument("date", "use either date or from/to, not both")
            }
            (request.from, request.to) = (date, date)
        }
        if let from = request.from, let to = request.to, to < from {
            throw .invalidArgument("to", "is before from")
        }
        request.status = try object.choice("status", of: StatusFilter.self) ?? .pending
        request.includeRepeating = try object.bool("includeRepeating") ?? true
        if let text = try object.string("cursor") {
            guard let cursor = ListCursor(text, seal: seal) else {
                throw .invalidArgument("cursor", "is not a nextCursor from list_todos; call again without cursor")
            }
            guard cursor.filters == request.filterKey else {
                throw .invalidArgument(
                    "cursor",
                    "belongs to a call with other filters: pass the same date, from, to, status and "
                        + "includeRepeating as the call that returned it, or leave cursor out to start again")
            }
            request.cursor = cursor
        }
        return request
    }
}
