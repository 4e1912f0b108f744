import RelayCloudKit

/// The only `records/query` requests the tools send, in one place so `mustdo-relayctl cloudkit check` proves the
/// indexes with exactly these. Every other read is a `records/lookup` by record name or the zone's change feed,
/// which need no index.
///
/// Soft-deleted to-dos stay records until the app's daily pass purges them, so an account can hold thousands of
/// them beside a handful of live ones. CloudKit has no comparator for "field absent" (WS QueryingRecords lists
/// none, and a comparison with a missing field is not documented), so the relay cannot filter live records by
/// the missing `deletedAt`. It sorts by it instead: every record without `deletedAt` is at one end of the order
/// (which end is not documented either, nor that such records are included at all: `TodoDatabase+Listing.swift`
/// reads from both ends, and reads the query without a sort when neither starts with a live one and CloudKit
/// was never seen to include them), so the live to-dos are read first and reading stops at the first
/// soft-deleted one. `status` is filtered in the query, so finished
/// one-offs cost nothing when pending ones are asked for. The indexes: `deletedAt` SORTABLE and `status`
/// QUERYABLE on `Todo` (and `recordName` QUERYABLE for the query without a filter), `todoId` QUERYABLE and `date`
/// SORTABLE on `Occurrence` (`deploy/cloudkit/schema.ckdb`; the operator deploys it to production).
package enum TodoQueries {
    /// Every `Todo` record, live ones at one end: no filter (so CloudKit needs `recordName`, `___recordID`,
    /// QUERYABLE) and sorted by `deletedAt` (SORTABLE).
    package static func allTodos(_ schema: RecordSchema = RecordSchema(), ascending: Bool = true) -> RecordQuery {
        todos(statuses: nil, schema, ascending: ascending)
    }

    /// The `Todo` records with one of `statuses` (nil: any), sorted by `deletedAt` so live ones come at one end
    /// (`ascending` picks the direction), or (`sorted` false) in CloudKit's order, which includes every record
    /// whatever fields it lacks. A filter on `status` needs it QUERYABLE; the sort needs `deletedAt` SORTABLE.
    package static func todos(
        statuses: [String]?, _ schema: RecordSchema = RecordSchema(), ascending: Bool = true, sorted: Bool = true
    ) -> RecordQuery {
        var filters: [QueryFilter] = []
        if let statuses {
            filters.append(
                statuses.count == 1
                    ? QueryFilter(.field(schema.todo.status), .equals, .string(statuses[0]))
                    : QueryFilter(.field(schema.todo.status), .in, .stringList(statuses)))
        }
        return RecordQuery(
            recordType: schema.todo.recordType, filters: filters,
            sortBy: sorted ? [QuerySort(.field(schema.todo.deletedAt), ascending: ascending)] : [])
    }

    /// The `Occurrence` records of the to-dos `ids` (at most 200), dated from `from` to `to` (inclusive, either
    /// open): `todoId IN ids` (QUERYABLE) and a range on `date` (`YYYY-MM-DD` strings order as days do; SORTABLE).
    package static func occurrences(
        of ids: [String], from: LocalDate? = nil, to: LocalDate? = nil, _ schema: RecordSchema = RecordSchema()
    ) -> RecordQuery {
        var filters = [QueryFilter(.field(schema.occurrence.todoId), .in, .stringList(ids))]
        if let from {
            filters.append(QueryFilter(.field(schema.occurrence.date), .greaterThanOrEquals, .string(from.description)))
        }
        if let to {
            filters.append(QueryFilter(.field(schema.occurrence.date), .lessThanOrEquals, .string(to.description)))
        }
        return RecordQuery(recordType: schema.occurrence.recordType, filters: filters)
    }
}
