import RelayJSON

/// A query index of one record type in one zone, ordered by one field (or, without a field, by record name):
/// `records/query` reads its page in the query's order from here instead of sorting every record of the type.
/// Kept in step with every write (`ZoneState.put`, `ZoneState.remove`); built on the first query that needs it.
struct SortIndex: Sendable {
    struct Key: Hashable, Sendable {
        var recordType: String
        /// The field sorted by; nil: no sort (the order is the record names').
        var field: String?
    }

    /// A field value the index orders exactly as `QueryEvaluation.compare` does: integers, or strings.
    enum Value: Comparable, Sendable {
        case int(Int)
        case string(String)

        init?(_ json: JSONValue) {
            switch json {
            case .int(let value): self = .int(value)
            case .string(let value): self = .string(value)
            default: return nil
            }
        }

        var json: JSONValue {
            switch self {
            case .int(let value): .int(value)
            case .string(let value): .string(value)
            }
        }
    }

    struct Entry: Sendable {
        var value: Value
        var name: String

        /// The index's order: by value, ties by record name (as `QueryEvaluation.precedes` breaks them).
        func precedes(_ other: Entry) -> Bool { value < other.value || (value == other.value && name < other.name) }
    }

    let key: Key
    /// The records with the field, by value and name.
    private(set) var present: [Entry] = []
    /// The records without the field (every record of the type when `key.field` is nil), by name.
    private(set) var missing: [String] = []
    /// How many records hold an integer, a string or any other value in the field.
    private var integers = 0
    private var strings = 0
    private var others = 0

    init(key: Key, records: [String: StoredRecord]) {
        self.key = key
        for (name, record) in records where record.recordType == key.recordType {
            guard let field = key.field, let json = record.fields[field]?.value else {
                missing.append(name)
                continue
            }
            count(json, 1)
            if let value = Value(json) { present.append(Entry(value: value, name: name)) }
        }
        present.sort { $0.precedes($1) }
        missing.sort()
    }

    /// Whether `present` is in `QueryEvaluation`'s order: every value an integer, or every value a string. (Mixed
    /// or other values compare in ways a sorted array cannot hold; the query scans then.)
    var usable: Bool { others == 0 && (integers == 0 || strings == 0) }

    /// Whether `json`, held by a record the indexes have not caught up with, orders with this index's values.
    func accepts(_ json: JSONValue) -> Bool {
        switch Value(json) {
        case .int?: strings == 0
        case .string?: integers == 0
        case nil: false
        }
    }

    mutating func insert(_ name: String, _ record: StoredRecord) {
        guard let field = key.field, let json = record.fields[field]?.value else {
            missing.insert(name, at: missing.partitioningIndex { $0 > name })
            return
        }
        count(json, 1)
        guard let value = Value(json) else { return }
        let entry = Entry(value: value, name: name)
        present.insert(entry, at: present.partitioningIndex { entry.precedes($0) })
    }

    mutating func remove(_ name: String, _ record: StoredRecord) {
        guard let field = key.field, let json = record.fields[field]?.value else {
            let index = missing.partitioningIndex { $0 >= name }
            if index < missing.count, missing[index] == name { missing.remove(at: index) }
            return
        }
        count(json, -1)
        guard let value = Value(json) else { return }
        let entry = Entry(value: value, name: name)
        let index = present.partitioningIndex { !$0.precedes(entry) }
        if index < present.count, present[index].name == name { present.remove(at: index) }
    }

    private mutating func count(_ json: JSONValue, _ change: Int) {
        switch json {
        case .int: integers += change
        case .string: strings += change
        default: others += change
        }
    }

    /// Calls `visit` with each record name (and its value) in the order of a query sorted by the field, `ascending`
    /// or not, with the records without it first or last (`missingFirst`) or left out (`includeMissing` false),
    /// ties by name; stops when `visit` returns false.
    func forEach(
        ascending: Bool, missingFirst: Bool, includeMissing: Bool, _ visit: (String, Value?) -> Bool
    ) {
        func visitMissing() -> Bool {
            guard includeMissing else { return true }
            for name in missing where !visit(name, nil) { return false }
            return true
        }
        if missingFirst, !visitMissing() { return }
        if ascending {
            for entry in present where !visit(entry.name, entry.value) { return }
        } else {
            // Values from the largest down, each value's records by name (ties are broken by name either way).
            var end = present.count
            while end > 0 {
                let value = present[end - 1].value
                var start = end - 1
                while start > 0, present[start - 1].value == value { start -= 1 }
                for entry in present[start..<end] where !visit(entry.name, value) { return }
                end = start
            }
        }
        if !missingFirst { _ = visitMissing() }
    }
}
