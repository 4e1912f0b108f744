/// A JSON document as a value. The relay parses and writes JSON with this type on hot paths
/// (JSON-RPC, logs) because Foundation's coders cost tens of microseconds per small message.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// An integer that fits in `Int`.
    case int(Int)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string, if this is a string.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, if this is an integer (or a double with an exact integer value).
    package var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value) where value.rounded() == value && abs(value) < 9.0e15: Int(value)
        default: nil
        }
    }

    /// The number as a double, if this is a number.
    package var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The boolean, if this is a boolean.
    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    package var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    package var isNull: Bool { self == .null }

    /// The member `key` when this is an object.
    package subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// The JSON type name used in validation messages ("string", "object", …).
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int) { self = .int(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(floatLiteral value: Double) { self = .double(value) }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    package init(nilLiteral: ()) { self = .null }
    package init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
}

/// A JSON object that keeps its members in insertion order, so written documents read naturally
/// and compare byte for byte.
///
/// The pairs are stored unlabeled, as a dictionary literal's arguments arrive: an object written as
/// a literal with distinct keys (every tool result, every JSON-RPC envelope) keeps the literal's
/// array instead of copying it into a second one.
package struct JSONObject: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// The members in order. Keys are unique.
    private var pairs: [(String, JSONValue)]

    /// An empty object.
    package init() { pairs = [] }

    /// An object from pairs; a repeated key keeps its first position and its last value.
    package init(_ pairs: [(String, JSONValue)]) {
        if Self.keysAreDistinct(pairs) {
            self.pairs = pairs
            return
        }
        self.pairs = []
        self.pairs.reserveCapacity(pairs.count)
        for (key, value) in pairs { self[key] = value }
    }

    package init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }

    /// An object from members whose keys the caller has already made unique (the parser).
    init(uniquePairs: [(String, JSONValue)]) { pairs = uniquePairs }

    /// Whether no key repeats: pairwise for the small objects literals make, through a set beyond.
    private static func keysAreDistinct(_ pairs: [(String, JSONValue)]) -> Bool {
        guard pairs.count > 1 else { return true }
        guard pairs.count <= 16 else { return Set(pairs.lazy.map(\.0)).count == pairs.count }
        for index in 1..<pairs.count {
            let key = pairs[index].0
            for earlier in 0..<index where pairs[earlier].0 == key { return false }
        }
        return true
    }

    /// The members in order (a copy; iterate the object itself to read them in place).
    package var members: [(key: String, value: JSONValue)] { pairs.map { (key: $0.0, value: $0.1) } }

    /// The number of members.
    package var count: Int { pairs.count }

    /// The member names in order.
    package var keys: [String] { pairs.map(\.0) }

    /// Reads or writes a member; writing nil removes it.
    package subscript(key: String) -> JSONValue? {
        get {
            for pair in pairs where pair.0 == key { return pair.1 }
            return nil
        }
        set {
            if let index = pairs.firstIndex(where: { $0.0 == key }) {
                if let newValue { pairs[index].1 = newValue } else { pairs.remove(at: index) }
            } else if let newValue {
                pairs.append((key, newValue))
            }
        }
    }

    /// Reads the members in order, labelled, without copying them.
    package struct Iterator: IteratorProtocol {
        fileprivate var base: IndexingIterator<[(String, JSONValue)]>

        package mutating func next() -> (key: String, value: JSONValue)? {
            guard let (key, value) = base.next() else { return nil }
            return (key: key, value: value)
        }
    }

    package func makeIterator() -> Iterator { Iterator(base: pairs.makeIterator()) }

    /// Calls `body` with each member in order, lent rather than copied.
    package func forEachMember(_ body: (borrowing String, borrowing JSONValue) -> Void) {
        pairs.withUnsafeBufferPointer { pairs in
            for index in pairs.indices { body(pairs[index].0, pairs[index].1) }
        }
    }

    package var underestimatedCount: Int { pairs.count }

    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.pairs.count == rhs.pairs.count
            && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }
}
