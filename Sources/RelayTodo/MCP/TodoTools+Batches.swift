import Foundation
import RelayCloudKit
import RelayJSON

/// The batch tools (issue 44). A batch makes two CloudKit calls whatever its size: one lookup of the
/// Account and every record the items need, one `records/modify` with every item's write (more only for an item
/// that hits a CONFLICT, merged as the single tool would).
extension AddTodos {
    /// `add_todos`: the Account (the entitlement hint decides for the whole batch, as the app decides when adding),
    /// then one `records/modify` creating every valid item.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let items = try parse(arguments)
        let account = try await database.snapshot().account
        guard account.canAddTodos(now: now) else { throw TodoError.paymentRequired }
        var plan: [BatchStep] = []
        for item in items {
            switch item {
            case .refused(let id, let error): plan.append(.done(.failed(id, error)))
            case .valid(let request):
                do throws(TodoError) {
                    let created = try AddTodo.apply(request, account: account, now: now, newID: UUID().uuidString)
                    plan.append(.write(.create(created.todo)))
                } catch {
                    plan.append(.done(.failed(nil, error)))
                }
            }
        }
        return try await BatchStep.finish(plan, database, now)
    }
}

extension CompleteTodos {
    /// `complete_todos`: one lookup (Account, to-dos, each one's candidate Occurrences), one `records/modify`.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let items = try parse(arguments)
        let requests = BatchStep.valid(items)
        let names = requests.flatMap { request in
            [request.id]
                + (request.occurrenceDate.map { [$0] } ?? TimeRules.possibleTodays(now: now)).map {
                    Occurrence.recordName(todoId: request.id, date: $0)
                }
        }
        let (account, found) = try await database.batchSnapshot(names)
        let plan = items.map { item in
            BatchStep.plan(item, id: \.id) { request throws in
                let (base, current) = try database.batchTodo(request.id, found)
                let date = CompleteTodo.occurrenceDate(request, todo: current, account: account, now: now)
                let stored = try database.batchOccurrence(Occurrence.recordName(todoId: current.id, date: date), found)
                switch try CompleteTodo.apply(
                    request, current: current, existing: stored.flatMap(Occurrence.init(record:)), account: account,
                    now: now)
                {
                case .updated(let change): return .write(.change(change, base: base, deleting: false))
                case .occurrence(_, let occurrence): return .write(.occurrence(occurrence, base: stored))
                case .alreadyDone: return .done(.ok(request.id))
                }
            }
        }
        return try await BatchStep.finish(plan, database, now)
    }
}

extension SnoozeTodos {
    /// `snooze_todos`: like `complete_todos`, with `snooze_todo`'s rule for each.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let items = try parse(arguments)
        let requests = BatchStep.valid(items)
        let names = requests.flatMap { request in
            [request.id]
                + (request.occurrenceDate.map { [$0] } ?? TimeRules.possibleTodays(now: now)).map {
                    Occurrence.recordName(todoId: request.id, date: $0)
                }
        }
        let (account, found) = try await database.batchSnapshot(names)
        let plan = items.map { item in
            BatchStep.plan(item, id: \.id) { request throws in
                let (base, current) = try database.batchTodo(request.id, found)
                switch try SnoozeTodo.apply(request, current: current, account: account, now: now).outcome {
                case .updated(let change): return .write(.change(change, base: base, deleting: false))
                case .occurrence(_, let occurrence):
                    return .write(
                        .occurrence(occurrence, base: try database.batchOccurrence(occurrence.recordName, found)))
                }
            }
        }
        return try await BatchStep.finish(plan, database, now)
    }
}

extension DeleteTodos {
    /// `delete_todos`: one lookup, one `records/modify` of soft deletes.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let items = try parse(arguments)
        let (_, found) = try await database.batchSnapshot(BatchStep.valid(items).map(\.id))
        let plan = items.map { item in
            BatchStep.plan(item, id: \.id) { request throws in
                let (base, current) = try database.batchTodo(request.id, found)
                let change = try DeleteTodo.apply(request, current: current, now: now)
                return .write(.change(change, base: base, deleting: true))
            }
        }
        return try await BatchStep.finish(plan, database, now)
    }
}

/// One item of a batch on its way: already answered (refused, or nothing to write), or a write to make.
enum BatchStep {
    case done(BatchResult)
    case write(TodoDatabase.BatchWrite)

    /// The valid requests of `items`.
    static func valid<Request>(_ items: [Batch.Item<Request>]) -> [Request] {
        items.compactMap { if case .valid(let request) = $0 { request } else { nil } }
    }

    /// The step for `item`: its refusal, or what `decide` makes of it (a `TodoError` or a record that cannot be
    /// read refuses that item only).
    static func plan<Request>(
        _ item: Batch.Item<Request>, id: (Request) -> String, _ decide: (Request) throws -> BatchStep
    ) -> BatchStep {
        switch item {
        case .refused(let id, let error): return .done(.failed(id, error))
        case .valid(let request):
            do {
                return try decide(request)
            } catch {
                return .done(.failed(id(request), error))
            }
        }
    }

    /// Writes the planned writes in one go and answers `{results, undo}`, one result per item in order and one
    /// undo handle for every record written.
    static func finish(_ plan: [BatchStep], _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let writes = plan.compactMap { if case .write(let write) = $0 { write } else { nil } }
        let outcomes = try await database.write(writes)
        var results: [BatchResult] = []
        var entries: [UndoHandle.Entry] = []
        for step in plan {
            switch step {
            case .done(let result): results.append(result)
            case .write(let write):
                switch outcomes[write.todoId] {
                case .success(let entry)?:
                    results.append(.ok(write.todoId))
                    if let entry { entries.append(entry) }
                case .failure(let error)?:
                    if let error = error as? CloudKitError, error.kind == .sessionDead || error.kind == .cancelled {
                        throw error
                    }
                    results.append(.failed(write.todoId, error))
                case nil: results.append(.failed(write.todoId, TodoError.upstreamUnavailable()))
                }
            }
        }
        return Batch.result(results, undo: database.undo(entries, now: now))
    }
}

extension TodoDatabase {
    /// The to-do `id` among `found` (record and domain value); `NOT_FOUND` when missing, not a `Todo`, or deleted
    /// (the single tools' `apply` says deleted too).
    func batchTodo(_ id: String, _ found: [String: Record]) throws -> (TodoRecord, Todo) {
        guard let record = found[id], let base = try todo(record) else { throw TodoError.notFound(id: id) }
        return (base, Todo(record: base))
    }

    /// The Occurrence `name` among `found`, nil when the day has none.
    func batchOccurrence(_ name: String, _ found: [String: Record]) throws -> OccurrenceRecord? {
        guard let record = found[name], record.recordType == schema.occurrence.recordType else { return nil }
        return try OccurrenceRecord(record: record, schema: schema.occurrence)
    }
}
