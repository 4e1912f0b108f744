/// An ordered list of header fields. Names compare case-insensitively; the parser stores request
/// names lowercased, response names keep the case they were written with.
package struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in order.
    package private(set) var fields: [(name: String, value: String)]

    /// An empty header list.
    package init() { fields = [] }

    /// Headers from name/value pairs, in order.
    package init(_ fields: [(String, String)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }

    /// Headers from a literal; order is the literal's.
    package init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The number of fields.
    package var count: Int { fields.count }

    /// Makes room for `capacity` fields (a parser that knows roughly how many are coming).
    package mutating func reserveCapacity(_ capacity: Int) { fields.reserveCapacity(capacity) }

    /// The first value of `name`, or nil.
    package subscript(name: String) -> String? {
        for field in fields where field.name == name || Self.equalsIgnoringCase(field.name, name) { return field.value }
        return nil
    }

    /// The value of `name` when exactly one field has it; nil when none or several do. For fields
    /// that must not repeat, without building the array `values` returns.
    package func onlyValue(_ name: String) -> String? {
        var found: String?
        for field in fields where Self.equalsIgnoringCase(field.name, name) {
            guard found == nil else { return nil }
            found = field.value
        }
        return found
    }

    /// Every value of `name`, in order.
    package func values(_ name: String) -> [String] {
        fields.filter { Self.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    /// Appends a field, keeping any existing ones with the same name (as `Set-Cookie` needs).
    package mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    /// Replaces every field called `name` with one field.
    package mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    /// Removes every field called `name`.
    package mutating func remove(_ name: String) {
        // Removing nothing from shared fields (a response built from static headers) would copy
        // them for nothing, and `set`'s append would then copy them again, larger.
        guard fields.contains(where: { Self.equalsIgnoringCase($0.name, name) }) else { return }
        fields.removeAll { Self.equalsIgnoringCase($0.name, name) }
    }

    /// Whether a comma-separated header such as `Connection` lists `token` (case-insensitive).
    package func contains(_ name: String, token: String) -> Bool {
        values(name).contains { value in
            value.split(separator: ",").contains {
                Self.equalsIgnoringCase(String($0.trimmingOWS), token)
            }
        }
    }

    package func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    package static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// ASCII case-insensitive comparison, which is what header names need.
    static func equalsIgnoringCase(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?) where ByteClass.lowercased(a) == ByteClass.lowercased(b): continue
            default: return false
            }
        }
    }
}

extension Substring {
    /// The substring without optional whitespace (SP / HTAB) at either end.
    package var trimmingOWS: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
