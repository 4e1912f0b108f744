import Foundation
import RelayCloudKit
import RelayJSON

/// A request for one to-do that may name a repeat's day (`complete_todo`, `snooze_todo` and their batches).
protocol DayRequest {
    /// The to-do.
    var id: String { get }
    /// Repeating only: which day; nil = today in the to-do's zone.
    var occurrenceDate: LocalDate? { get }
}

extension CompleteTodo.Request: DayRequest {}
extension SnoozeTodo.Request: DayRequest {}

extension DayRequest {
    /// The Occurrence records the request may touch, looked up with its to-do: the day asked for, or each
    /// date that is today somewhere now (the to-do's zone is known only once it is read).
    func occurrenceNames(now: Date) -> [String] {
        (occurrenceDate.map { [$0] } ?? TimeRules.possibleTodays(now: now)).map {
            Occurrence.recordName(todoId: id, date: $0)
        }
    }
}

extension BatchStep {
    /// What one lookup of a batch found: the Account and every record by name.
    struct Found {
        let account: Account
        let records: [String: Record]
        let database: TodoDatabase

        /// The Occurrence `name`, nil when the day has none.
        func occurrence(_ name: String) throws -> OccurrenceRecord? {
            try database.batchOccurrence(name, records)
        }
    }

    /// A batch of day requests (`complete_todos`, `snooze_todos`): one lookup of the Account, each to-do and
    /// the Occurrences its day may name, then `rule` for each valid item (the request, its to-do as stored and
    /// as a value, and what the lookup found), then one write. A missing or deleted to-do refuses its item.
    static func runDays<Request: DayRequest>(
        _ items: [Batch.Item<Request>], _ database: TodoDatabase, _ now: Date,
        _ rule: (Request, TodoRecord, Todo, Found) throws -> BatchStep
    ) async throws -> JSONValue {
        let names = valid(items).flatMap { [$0.id] + $0.occurrenceNames(now: now) }
        let (account, records) = try await database.batchSnapshot(names)
        let found = Found(account: account, records: records, database: database)
        let plan = items.map { item in
            BatchStep.plan(item, id: \.id) { request throws in
                let (base, current) = try database.batchTodo(request.id, records)
                return try rule(request, base, current, found)
            }
        }
        return try await finish(plan, database, now)
    }
}
