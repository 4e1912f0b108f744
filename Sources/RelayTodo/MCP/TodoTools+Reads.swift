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

extension TimeRules {
    /// The Occurrence dates that can be "today" in some time zone at `now` (UTC yesterday, today, tomorrow), so
    /// one lookup can fetch a repeating to-do's Occurrence before its own zone is known.
    static func possibleTodays(now: Date) -> [LocalDate] {
        let today = TimeRules.utc.today(now: now)
        return [today.adding(days: -1), today, today.adding(days: 1)]
    }
}
