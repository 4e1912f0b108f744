import Foundation
import RelayCloudKit
import RelayJSON

/// One item of a batch on its way: already answered (refused, or nothing to write), or a write to make.
///
/// A batch makes two CloudKit calls whatever its size: one lookup of the Account and every record the items need,
/// one `records/modify` with every item's write (more only for an item that hits a CONFLICT, merged as the single
/// tool would).
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
                    if let error = error as? CloudKitError,
                        error.kind == .sessionDead || error.kind == .signInRequired || error.kind == .cancelled
                    {
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
