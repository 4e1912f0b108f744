import RelayCloudKit

/// The only `records/query` requests the tools send, in one place so `mustdo-relayctl cloudkit check` proves the
/// indexes with exactly these. Every other read is a `records/lookup` by record name, which needs no index.
package enum TodoQueries {
    /// Every `Todo` record. No filter, so CloudKit needs `recordName` (`___recordID`) QUERYABLE on `Todo`.
    package static func allTodos(_ schema: RecordSchema = RecordSchema()) -> RecordQuery {
        RecordQuery(recordType: schema.todo.recordType)
    }

    /// The `Occurrence` records of the to-dos `ids` (at most 200): `todoId IN ids`, so CloudKit needs `todoId`
    /// QUERYABLE on `Occurrence`.
    package static func occurrences(of ids: [String], _ schema: RecordSchema = RecordSchema()) -> RecordQuery {
        RecordQuery(
            recordType: schema.occurrence.recordType,
            filters: [QueryFilter(.field(schema.occurrence.todoId), .in, .stringList(ids))])
    }
}
