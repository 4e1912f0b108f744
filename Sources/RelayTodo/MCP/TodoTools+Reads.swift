import Foundation
import RelayCloudKit
import RelayJSON

extension GetMe {
    /// `get_me`: one lookup of the Account record.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        try parse(arguments)
        return result(account: try await database.snapshot().account, now: now)
    }
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

extension SearchTodos {
    /// `search`: the zone's newest changes, the Account and the live to-dos, pending ones first and then finished
    /// ones within the same budget of calls, matched here: CloudKit has no index for words inside a field.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let listing = try await database.listing(groups: [["pending"], ["done", "skipped"]])
        let todos = listing.todos.values.map(Todo.init(record:))
        let account = listing.account
        var hits = select(request, todos: todos, account: account, now: now)
        // A repeat's "next" honours its done, skipped and snoozed days: one lookup of the days that can be next.
        var occurrences = listing.recentOccurrences.values.compactMap(Occurrence.init(record:))
        let repeating = hits.map(\.todo).filter(\.isRepeating).map(\.id)
        if !repeating.isEmpty {
            let names = repeating.flatMap { id in
                upcomingDays(now: now).map { Occurrence.recordName(todoId: id, date: $0) }
            }
            let found = try await database.lookup(names)
            occurrences += found.values.compactMap {
                (try? OccurrenceRecord(record: $0, schema: database.schema.occurrence)).flatMap(
                    Occurrence.init(record:))
            }
            hits = select(request, todos: todos, account: account, now: now, occurrences: occurrences)
        }
        return result(hits, account: account, now: now, occurrences: occurrences, warning: listing.warning)
    }
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

extension SearchTodos {
    /// The days whose Occurrences can decide a repeat's next alarm at `now`: from any zone's yesterday (a snooze
    /// past midnight) over the coming week: 9 per to-do, so the 20 results fit one lookup.
    static func upcomingDays(now: Date) -> [LocalDate] {
        let today = TimeRules.utc.today(now: now)
        return (-2...6).map { today.adding(days: $0) }
    }
}

extension TimeRules {
    /// The Occurrence dates that can be "today" in some time zone at `now` (UTC yesterday, today, tomorrow), so
    /// one lookup can fetch a repeating to-do's Occurrence before its own zone is known.
    static func possibleTodays(now: Date) -> [LocalDate] {
        let today = TimeRules.utc.today(now: now)
        return [today.adding(days: -1), today, today.adding(days: 1)]
    }
}
