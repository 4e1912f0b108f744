import RelayJSON

/// Reads keywords out of a schema object one by one, so what is left at the end is what the
/// compiler did not understand.
struct SchemaReader {
    private var members: [String: JSONValue]

    init(object: JSONObject) {
        var members: [String: JSONValue] = [:]
        for (key, value) in object { members[key] = value }
        self.members = members
    }

    var remaining: [String] { members.keys.sorted() }

    mutating func take(_ key: String) -> JSONValue? { members.removeValue(forKey: key) }

    mutating func types() throws(MCPError) -> [String]? {
        switch take("type") {
        case nil: return nil
        case .string(let name)?: return [name]
        case .array(let names)?:
            let strings = names.compactMap(\.stringValue)
            guard strings.count == names.count, !strings.isEmpty else { throw JSONSchema.invalid("bad \"type\"") }
            return strings
        default: throw JSONSchema.invalid("bad \"type\"")
        }
    }

    mutating func properties() throws(MCPError) -> [(name: String, schema: JSONSchema)] {
        guard let value = take("properties") else { return [] }
        guard case .object(let object) = value else { throw JSONSchema.invalid("\"properties\" must be an object") }
        var result: [(name: String, schema: JSONSchema)] = []
        for (name, schema) in object { result.append((name, try JSONSchema(schema))) }
        return result
    }

    mutating func additional() throws(MCPError) -> JSONSchema.Additional {
        switch take("additionalProperties") {
        case nil, .bool(true)?: return .allowed
        case .bool(false)?: return .forbidden
        case let schema?: return .schema(try JSONSchema(schema))
        }
    }

    mutating func strings(_ key: String) throws(MCPError) -> [String]? {
        guard let value = take(key) else { return nil }
        guard case .array(let elements) = value else { throw JSONSchema.invalid("\"\(key)\" must be an array") }
        let strings = elements.compactMap(\.stringValue)
        guard strings.count == elements.count else { throw JSONSchema.invalid("\"\(key)\" must hold strings") }
        return strings
    }

    mutating func array(_ key: String) throws(MCPError) -> [JSONValue]? {
        guard let value = take(key) else { return nil }
        guard case .array(let elements) = value, !elements.isEmpty else {
            throw JSONSchema.invalid("\"\(key)\" must be a non-empty array")
        }
        return elements
    }

    mutating func count(_ key: String) throws(MCPError) -> Int? {
        guard let value = take(key) else { return nil }
        guard let count = value.intValue, count >= 0 else {
            throw JSONSchema.invalid("\"\(key)\" must be a non-negative integer")
        }
        return count
    }

    mutating func number(_ key: String) throws(MCPError) -> Double? {
        guard let value = take(key) else { return nil }
        guard let number = value.doubleValue else { throw JSONSchema.invalid("\"\(key)\" must be a number") }
        return number
    }

    mutating func bool(_ key: String) throws(MCPError) -> Bool? {
        guard let value = take(key) else { return nil }
        guard let bool = value.boolValue else { throw JSONSchema.invalid("\"\(key)\" must be a boolean") }
        return bool
    }

    mutating func pattern() throws(MCPError) -> SchemaPattern? {
        guard let value = take("pattern") else { return nil }
        guard let source = value.stringValue else { throw JSONSchema.invalid("\"pattern\" must be a string") }
        return try SchemaPattern(source)
    }

    mutating func subschema(_ key: String) throws(MCPError) -> JSONSchema? {
        guard let value = take(key) else { return nil }
        return try JSONSchema(value)
    }

    mutating func subschemas(_ key: String) throws(MCPError) -> [JSONSchema] {
        guard let value = take(key) else { return [] }
        guard case .array(let elements) = value, !elements.isEmpty else {
            throw JSONSchema.invalid("\"\(key)\" must be a non-empty array")
        }
        var result: [JSONSchema] = []
        for element in elements { result.append(try JSONSchema(element)) }
        return result
    }
}
