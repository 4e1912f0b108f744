import RelayJSON

/// A `records/query` request.
package struct RecordQuery: Sendable, Equatable {
    /// The record type to search.
    package var recordType: String
    /// Conditions, all of which must hold.
    package var filters: [QueryFilter]
    /// Sort order, most significant first.
    package var sortBy: [QuerySort]
    /// Records per page (CloudKit's maximum, and default, is 200).
    package var resultsLimit: Int?
    /// Fields to return (nil: all).
    package var desiredKeys: [String]?
    /// The marker from the previous page of the same query.
    package var continuationMarker: String?

    /// A query.
    package init(
        recordType: String,
        filters: [QueryFilter] = [],
        sortBy: [QuerySort] = [],
        resultsLimit: Int? = nil,
        desiredKeys: [String]? = nil,
        continuationMarker: String? = nil
    ) {
        self.recordType = recordType
        self.filters = filters
        self.sortBy = sortBy
        self.resultsLimit = resultsLimit
        self.desiredKeys = desiredKeys
        self.continuationMarker = continuationMarker
    }

    func json(zoneName: String) -> JSONValue {
        var query: JSONObject = ["recordType": .string(recordType)]
        if !filters.isEmpty { query["filterBy"] = .array(filters.map(\.json)) }
        if !sortBy.isEmpty { query["sortBy"] = .array(sortBy.map(\.json)) }
        var object: JSONObject = ["zoneID": ["zoneName": .string(zoneName)], "query": .object(query)]
        if let resultsLimit { object["resultsLimit"] = .int(resultsLimit) }
        if let desiredKeys { object["desiredKeys"] = .array(desiredKeys.map { .string($0) }) }
        if let continuationMarker { object["continuationMarker"] = .string(continuationMarker) }
        return .object(object)
    }
}

/// A field a filter or sort names: a record field, or a system field such as `recordName` or
/// `modifiedTimestamp`.
package enum QueryField: Sendable, Equatable {
    /// A field of the record type.
    case field(String)
    /// A system field: `recordName`, `createdTimestamp`, `modifiedTimestamp`, ….
    case system(String)

    func write(into object: inout JSONObject) {
        switch self {
        case .field(let name): object["fieldName"] = .string(name)
        case .system(let name): object["systemFieldName"] = .string(name)
        }
    }
}

/// One filter condition.
package struct QueryFilter: Sendable, Equatable {
    /// The comparators of the Web Services reference.
    package enum Comparator: String, Sendable {
        /// `EQUALS`.
        case equals = "EQUALS"
        /// `NOT_EQUALS`.
        case notEquals = "NOT_EQUALS"
        /// `LESS_THAN`.
        case lessThan = "LESS_THAN"
        /// `LESS_THAN_OR_EQUALS`.
        case lessThanOrEquals = "LESS_THAN_OR_EQUALS"
        /// `GREATER_THAN`.
        case greaterThan = "GREATER_THAN"
        /// `GREATER_THAN_OR_EQUALS`.
        case greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
        /// `IN`.
        case `in` = "IN"
        /// `NOT_IN`.
        case notIn = "NOT_IN"
        /// `BEGINS_WITH`.
        case beginsWith = "BEGINS_WITH"
        /// `LIST_CONTAINS`.
        case listContains = "LIST_CONTAINS"
    }

    /// The comparison.
    package var comparator: Comparator
    /// The field compared.
    package var field: QueryField
    /// The value compared with; for IN and NOT_IN a list type such as `.stringList`.
    package var value: FieldValue

    /// A filter.
    package init(_ field: QueryField, _ comparator: Comparator, _ value: FieldValue) {
        self.field = field
        self.comparator = comparator
        self.value = value
    }

    var json: JSONValue {
        var object: JSONObject = ["comparator": .string(comparator.rawValue)]
        field.write(into: &object)
        object["fieldValue"] = value.json
        return .object(object)
    }
}

/// One sort key.
package struct QuerySort: Sendable, Equatable {
    /// The field sorted by.
    package var field: QueryField
    /// Ascending (the default) or descending.
    package var ascending: Bool

    /// A sort key.
    package init(_ field: QueryField, ascending: Bool = true) {
        self.field = field
        self.ascending = ascending
    }

    var json: JSONValue {
        var object: JSONObject = ["ascending": .bool(ascending)]
        field.write(into: &object)
        return .object(object)
    }
}

/// One page of query results.
package struct QueryPage: Sendable, Equatable {
    /// The records on this page (item errors, if any, are in `failures`).
    package var records: [Record]
    /// Items that came back as errors.
    package var failures: [CloudKitError]
    /// Present when more results exist: send the same query again with it.
    package var continuationMarker: String?

    /// A page.
    package init(records: [Record], failures: [CloudKitError] = [], continuationMarker: String? = nil) {
        self.records = records
        self.failures = failures
        self.continuationMarker = continuationMarker
    }
}

/// The pages of a query read by `CloudKitClient.queryPages`.
package struct QueryRun: Sendable, Equatable {
    /// Every record of the pages read, in order.
    package var records: [Record] = []
    /// CloudKit said there are no more (the last page had no continuation marker).
    package var complete = false
    /// The caller's `enough` ended the reading before CloudKit's last page.
    package var stopped = false
    /// Calls made.
    package var pages = 0

    /// An empty run.
    package init() {}
}
