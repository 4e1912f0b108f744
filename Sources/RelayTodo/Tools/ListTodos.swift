import Foundation
import RelayCloudKit
import RelayJSON
import RelayMCP

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

extension ListTodos {
    /// The tool's name, title, schemas and hints.
    package static let definition = ToolDefinition(
        name: "list_todos", title: "List to-dos",
        description: """
            Lists the user's to-dos. Pick one day with date, or a range with from and/or to (YYYY-MM-DD, both \
            inclusive, days in the user's time zone: call get_me for today); with none of them, all dates. \
            status filters one-off to-dos: pending (default), done, skipped or all. One-off to-dos come back in \
            items, sorted by due time. Repeating to-dos are not expanded into days: they come back in repeating \
            as templates, each with its rule in words in repeatDescription (e.g. "every other week on Monday and \
            Wednesday at 07:30") and the occurrences (per-day done, skipped or snoozed records) dated in the \
            range; includeRepeating: false leaves them out. Deleted to-dos never appear. At most 200 entries \
            per call: when nextCursor is present, call again with cursor set to it and the same filters \
            (other filters with it are refused). complete is false only when iCloud held more than could be \
            read; then warning says what may be missing: tell the user. quietHours (as in get_me) is when no alarm \
            rings: a time asked inside them moves to their end.
            """,
        requiredScopes: [TodoScope.read],
        inputSchema: Schema.object(
            [
                ("date", Schema.date("One day only. Do not combine with from/to.")),
                ("from", Schema.date("First day, inclusive.")),
                ("to", Schema.date("Last day, inclusive.")),
                (
                    "status",
                    Schema.string(
                        "One-off to-dos: pending (default), done, skipped or all.",
                        enumeration: StatusFilter.allCases.map(\.rawValue))
                ),
                ("includeRepeating", Schema.boolean("Include repeating to-dos (default true).")),
                ("cursor", Schema.string("nextCursor from the previous call, for the next page.")),
            ],
            closed: true),
        outputSchema: Schema.object(
            [
                ("timeZone", Schema.timeZone),
                ("quietHours", Schema.quietHours),
                ("items", Schema.array(of: Schema.todo, description: "One-off to-dos, by due time.")),
                ("repeating", Schema.array(of: repeatingEntry, description: "Repeating to-dos, as templates.")),
                ("nextCursor", Schema.string("Present when more entries exist.")),
                ("complete", Schema.completeness),
                ("warning", Schema.warning),
            ],
            required: ["timeZone", "quietHours", "items", "repeating", "complete"]),
        annotations: ToolAnnotations(
            readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false))

    private static let repeatingEntry = Schema.object(
        Schema.todoProperties + [("occurrences", Schema.array(of: Schema.occurrence))],
        required: Schema.todoRequired + ["occurrences"])
}

extension ListTodos {
    /// `list_todos`: the zone's newest changes, the Account, the live to-dos of the asked status (with pending
    /// ones when repeating templates are wanted: a template stays pending) and the Occurrences of the repeating
    /// to-dos on the page in the range (`TodoDatabase+Listing.swift`; calls in docs/tools.md).
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments, seal: database.cursorSeal)
        var statuses: [String]? = request.status == .all ? nil : [request.status.rawValue]
        if request.includeRepeating, request.status != .pending, request.status != .all {
            statuses?.append(StatusFilter.pending.rawValue)
        }
        var listing = try await database.listing(groups: [statuses])
        let account = listing.account
        let todos = listing.todos.values.map(Todo.init(record:))
        var page = select(request, todos: todos, occurrences: [], account: account, seal: database.cursorSeal)
        let repeating = page.repeating.map(\.todo.id)
        if !repeating.isEmpty {
            // A day before and after: an occurrence dated on the to-do's own clock may ring on the range's first
            // or last day on the person's clock (another zone), or be snoozed into it.
            let found = try await database.occurrences(
                of: repeating, from: request.from?.adding(days: -1), to: request.to?.adding(days: 1), listing: listing)
            if !found.complete { listing.gaps.append(.occurrencesCut) }
            page = select(
                request, todos: todos, occurrences: found.occurrences.compactMap(Occurrence.init(record:)),
                account: account, seal: database.cursorSeal)
        }
        return result(page, account: account, warning: listing.warning)
    }
}

extension ListTodos {
    /// The page for `request` from every Todo and Occurrence record the caller fetched (it may fetch more than
    /// needed: everything is filtered here). Soft-deleted to-dos never appear. One-offs match by the date of
    /// `dueAt` in the Account zone and by `status`; repeating to-dos (unless `includeRepeating` is false)
    /// match when their first occurrence is not after `to` and an `until` end is not before `from`, whatever
    /// the status filter, and carry their Occurrences that ring within the range on the person's clock (a
    /// snooze or the to-do's own zone can move a day; days the rule no longer has are left out). One-offs match
    /// by the day they ring: a pending one snoozed past its due time by the snooze. Entries are ordered by due
    /// time, then id, and cut into pages of `pageSize` (at most 200).
    package static func select(
        _ request: Request, todos: [Todo], occurrences: [Occurrence], account: Account, pageSize: Int = 200,
        seal: CursorSeal = .process
    ) -> Page {
        let rules = account.rules
        var entries: [(key: ListCursor, todo: Todo)] = []
        for todo in todos where !todo.isDeleted {
            // The day it rings on the person's clock: a pending one-off snoozed past its due time rings then.
            let day = (todo.isRepeating ? todo.dueAt : todo.ringsAt).map { rules.today(now: $0) }
            if let rule = todo.repeatRule {
                guard request.includeRepeating else { continue }
                if let to = request.to, let day, day > to { continue }
                if let from = request.from, case .until(let last) = rule.end, last < from { continue }
            } else {
                guard request.status == .all || todo.status.rawValue == request.status.rawValue else { continue }
                if request.from != nil || request.to != nil {
                    guard let day, request.from.map({ day >= $0 }) ?? true, request.to.map({ day <= $0 }) ?? true
                    else { continue }
                }
            }
            entries.append((ListCursor(todo: todo, filters: request.filterKey), todo))
        }
        entries.sort { $0.key < $1.key }
        if let cursor = request.cursor { entries.removeAll { !(cursor < $0.key) } }
        let size = min(max(pageSize, 1), 200)
        let page = entries.prefix(size)
        let nextCursor = entries.count > size ? page.last?.key.text(seal: seal) : nil

        let onPage = Dictionary(page.map { ($0.todo.id, $0.todo) }, uniquingKeysWith: { first, _ in first })
        var byTodo: [String: [Occurrence]] = [:]
        for occurrence in occurrences {
            guard let todo = onPage[occurrence.todoId] else { continue }
            // A day the repeat no longer rings on (its rule changed since) is not reported.
            if let schedule = todo.schedule(account: account), !schedule.contains(occurrence.date) { continue }
            // In range by the day it rings on the person's clock (a snooze, or the to-do's own zone, can move it).
            let ringDay =
                todo.ringsAt(on: occurrence.date, occurrence: occurrence, account: account)
                .map { rules.today(now: $0) } ?? occurrence.date
            if let from = request.from, ringDay < from { continue }
            if let to = request.to, ringDay > to { continue }
            byTodo[occurrence.todoId, default: []].append(occurrence)
        }
        return Page(
            items: page.map(\.todo).filter { !$0.isRepeating },
            repeating: page.map(\.todo).filter(\.isRepeating).map {
                RepeatingEntry(todo: $0, occurrences: (byTodo[$0.id] ?? []).sorted { $0.date < $1.date })
            },
            nextCursor: nextCursor)
    }

    /// The result's `structuredContent`: `{timeZone, items, repeating, nextCursor?, complete, warning?}`; `warning`
    /// (what could not be read, for the model to pass on) makes `complete` false.
    package static func result(_ page: Page, account: Account, warning: String? = nil) -> JSONValue {
        var object: JSONObject = [
            "timeZone": .string(account.rules.zoneName),
            "quietHours": account.quietHoursJSON,
            "items": .array(page.items.map { $0.json(account: account) }),
            "repeating": .array(
                page.repeating.map { entry in
                    guard case .object(var todo) = entry.todo.json(account: account) else { return .null }
                    todo["occurrences"] = .array(entry.occurrences.map { $0.json(account: account) })
                    return .object(todo)
                }),
        ]
        if let nextCursor = page.nextCursor { object["nextCursor"] = .string(nextCursor) }
        object["complete"] = .bool(warning == nil)
        if let warning { object["warning"] = .string(warning) }
        return .object(object)
    }
}
