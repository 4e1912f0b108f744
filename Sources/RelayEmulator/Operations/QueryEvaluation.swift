import RelayJSON

/// Filters and sort keys of `records/query`, evaluated over stored records.
struct QueryEvaluation {
    struct Filter {
        var comparator: String
        var field: FieldPath
        var value: JSONValue
    }

    struct SortKey {
        var field: FieldPath
        var ascending: Bool
    }

    /// A record field or a system field.
    enum FieldPath {
        case field(String)
        case system(String)
    }

    static let comparators: Set<String> = [
        "EQUALS", "NOT_EQUALS", "LESS_THAN", "LESS_THAN_OR_EQUALS", "GREATER_THAN", "GREATER_THAN_OR_EQUALS", "IN",
        "NOT_IN", "BEGINS_WITH", "LIST_CONTAINS", "NOT_LIST_CONTAINS",
    ]

    var filters: [Filter] = []
    var sortKeys: [SortKey] = []
    /// Records without a sort field go last in ascending order (first when false); descending reverses it.
    var missingLast = false
    /// Records without a sort field are left out of a sorted query altogether (`missingSortValues` `omitted`).
    var missingOmitted = false

    init(query: JSONValue) throws(EmulatorError) {
        for item in query["filterBy"]?.arrayValue ?? [] {
            guard let comparator = item["comparator"]?.stringValue else {
                throw .badRequest("filter without comparator")
            }
            guard Self.comparators.contains(comparator) else {
                throw .badRequest("comparator \(comparator) is not supported by the emulator")
            }
            let field = try Self.path(item)
            guard let value = item["fieldValue"]?["value"] else { throw .badRequest("filter without fieldValue") }
            let type = item["fieldValue"]?["type"]?.stringValue
            if comparator == "IN" || comparator == "NOT_IN" {
                guard value.arrayValue != nil, type.map({ $0.hasSuffix("_LIST") }) ?? true else {
                    throw .badRequest("Invalid value, expected a list type for \(comparator)")
                }
            } else if value.arrayValue != nil {
                throw .badRequest("Invalid value, expected type \(type ?? "STRING") but actual value was a list")
            }
            filters.append(Filter(comparator: comparator, field: field, value: value))
        }
        for item in query["sortBy"]?.arrayValue ?? [] {
            sortKeys.append(SortKey(field: try Self.path(item), ascending: item["ascending"]?.boolValue ?? true))
        }
    }

    private static func path(_ item: JSONValue) throws(EmulatorError) -> FieldPath {
        if let name = item["fieldName"]?.stringValue { return .field(name) }
        if let name = item["systemFieldName"]?.stringValue {
            guard ["recordName", "createdTimestamp", "modifiedTimestamp"].contains(name) else {
                throw .badRequest("system field \(name) is not supported by the emulator")
            }
            return .system(name)
        }
        throw .badRequest("fieldName or systemFieldName is required")
    }

    func matches(_ name: String, _ record: StoredRecord) -> Bool {
        filters.allSatisfy { filter in
            let actual = Self.value(filter.field, name, record)
            switch filter.comparator {
            case "EQUALS": return actual.map { Self.compare($0, filter.value) == 0 } ?? false
            case "NOT_EQUALS": return actual.map { Self.compare($0, filter.value) != 0 } ?? true
            case "LESS_THAN": return Self.ordered(actual, filter.value) { $0 < 0 }
            case "LESS_THAN_OR_EQUALS": return Self.ordered(actual, filter.value) { $0 <= 0 }
            case "GREATER_THAN": return Self.ordered(actual, filter.value) { $0 > 0 }
            case "GREATER_THAN_OR_EQUALS": return Self.ordered(actual, filter.value) { $0 >= 0 }
            case "IN": return Self.isMember(actual, filter.value)
            case "NOT_IN": return !Self.isMember(actual, filter.value)
            case "BEGINS_WITH":
                guard let text = actual?.stringValue, let prefix = filter.value.stringValue else { return false }
                return text.hasPrefix(prefix)
            case "LIST_CONTAINS": return actual?.arrayValue?.contains { Self.compare($0, filter.value) == 0 } ?? false
            default: return !(actual?.arrayValue?.contains { Self.compare($0, filter.value) == 0 } ?? false)
            }
        }
    }

    /// Whether the record is in the query's order at all: with `missingOmitted`, one that lacks a sort field is not.
    func ordered(_ name: String, _ record: StoredRecord) -> Bool {
        guard missingOmitted else { return true }
        return sortKeys.allSatisfy { Self.value($0.field, name, record) != nil }
    }

    /// A record's name and sort-field values, read once: sorting thousands of records by these (not by the
    /// records, whose copies and field lookups cost milliseconds per page) keeps the emulator's own time out of
    /// the latency it plays.
    struct SortEntry {
        var name: String
        var values: [JSONValue?]
    }

    /// The record's entry for `precedes`.
    func sortEntry(_ name: String, _ record: StoredRecord) -> SortEntry {
        SortEntry(name: name, values: sortKeys.map { Self.value($0.field, name, record) })
    }

    /// Sort order; records without a sort field come first (or last, `missingLast`) in ascending order, ties
    /// broken by record name.
    func precedes(_ left: SortEntry, _ right: SortEntry) -> Bool {
        for (index, key) in sortKeys.enumerated() {
            let a = left.values[index]
            let b = right.values[index]
            let order: Int
            switch (a, b) {
            case (nil, nil): order = 0
            case (nil, _): order = missingLast ? 1 : -1
            case (_, nil): order = missingLast ? -1 : 1
            case (let a?, let b?): order = Self.compare(a, b) ?? 0
            }
            if order != 0 { return key.ascending ? order < 0 : order > 0 }
        }
        return left.name < right.name
    }

    private static func value(_ path: FieldPath, _ name: String, _ record: StoredRecord) -> JSONValue? {
        switch path {
        case .field(let field): return record.fields[field]?.value
        case .system("recordName"): return .string(name)
        case .system("createdTimestamp"): return .int(Int(record.createdAt))
        case .system(_): return .int(Int(record.modifiedAt))
        }
    }

    private static func ordered(_ actual: JSONValue?, _ expected: JSONValue, _ test: (Int) -> Bool) -> Bool {
        guard let actual, let order = compare(actual, expected) else { return false }
        return test(order)
    }

    private static func isMember(_ actual: JSONValue?, _ list: JSONValue) -> Bool {
        guard let actual else { return false }
        return list.arrayValue?.contains { compare(actual, $0) == 0 } ?? false
    }

    /// -1, 0, 1 for comparable values of the same kind; nil otherwise.
    static func compare(_ a: JSONValue, _ b: JSONValue) -> Int? {
        if let x = a.stringValue, let y = b.stringValue { return x == y ? 0 : (x < y ? -1 : 1) }
        if let x = a.intValue, let y = b.intValue { return x == y ? 0 : (x < y ? -1 : 1) }
        if let x = a.doubleValue, let y = b.doubleValue { return x == y ? 0 : (x < y ? -1 : 1) }
        if case .object = a, let x = a["recordName"]?.stringValue, let y = b["recordName"]?.stringValue {
            return x == y ? 0 : (x < y ? -1 : 1)
        }
        return nil
    }
}
