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
    /// `list_todos`: the Account, every Todo record, and the Occurrences of the repeating to-dos on the page.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let account = try await database.snapshot().account
        let todos = try await database.allTodos().map(Todo.init(record:))
        var page = select(request, todos: todos, occurrences: [], account: account)
        let repeating = page.repeating.map(\.todo.id)
        if !repeating.isEmpty {
            let occurrences = try await database.occurrences(of: repeating).compactMap(Occurrence.init(record:))
            page = select(request, todos: todos, occurrences: occurrences, account: account)
        }
        return result(page, account: account)
    }
}

extension SearchTodos {
    /// `search`: the Account and every Todo record (the calls `list_todos` makes before its Occurrences), matched
    /// here: CloudKit has no index for words inside a field.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let account = try await database.snapshot().account
        let todos = try await database.allTodos().map(Todo.init(record:))
        return result(select(request, todos: todos, account: account, now: now), account: account, now: now)
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

extension TimeRules {
    /// The Occurrence dates that can be "today" in some time zone at `now` (UTC yesterday, today, tomorrow), so
    /// one lookup can fetch a repeating to-do's Occurrence before its own zone is known.
    static func possibleTodays(now: Date) -> [LocalDate] {
        let today = TimeRules.utc.today(now: now)
        return [today.adding(days: -1), today, today.adding(days: 1)]
    }
}
