import RelayJSON

/// A JSON Schema compiled once, for the subset tool arguments use: `type` (also arrays such as
/// `["string", "null"]`), `properties`, `required`, `additionalProperties`, `enum`, `const`,
/// `minLength`/`maxLength`, `minimum`/`maximum` (and the exclusive forms), `pattern`, `items`,
/// `minItems`/`maxItems`, `uniqueItems`, `anyOf`, `oneOf`, `allOf`. Annotation keywords
/// (`description`, `title`, `default`, `examples`, `format`, `$schema`, `x-…`) are ignored.
/// Any other keyword is refused when compiling, so a schema never promises a check that does
/// not happen.
package final class JSONSchema: Sendable {
    /// What `additionalProperties` allows.
    enum Additional: Sendable {
        case allowed
        case forbidden
        case schema(JSONSchema)
    }

    let types: [String]?
    let properties: [(name: String, schema: JSONSchema)]
    let required: [String]
    let additional: Additional
    let enumValues: [JSONValue]?
    let constValue: JSONValue?
    let minLength: Int?
    let maxLength: Int?
    let minimum: Double?
    let maximum: Double?
    let exclusiveMinimum: Double?
    let exclusiveMaximum: Double?
    let pattern: SchemaPattern?
    let items: JSONSchema?
    let minItems: Int?
    let maxItems: Int?
    let uniqueItems: Bool
    let anyOf: [JSONSchema]
    let oneOf: [JSONSchema]
    let allOf: [JSONSchema]

    private static let annotationKeywords: Set<String> = [
        "$schema", "$id", "$comment", "title", "description", "default", "examples", "format", "deprecated",
        "readOnly", "writeOnly",
    ]
    private static let typeNames: Set<String> = ["string", "integer", "number", "boolean", "object", "array", "null"]

    /// Compiles `schema`; throws `MCPError` (internal) naming the keyword that cannot be honoured.
    package init(_ schema: JSONValue) throws(MCPError) {
        let object: JSONObject
        switch schema {
        case .bool(true): object = [:]
        case .object(let members): object = members
        default: throw Self.invalid("a schema must be an object or true")
        }
        var reader = SchemaReader(object: object)
        types = try reader.types()
        properties = try reader.properties()
        required = try reader.strings("required") ?? []
        additional = try reader.additional()
        enumValues = try reader.array("enum")
        constValue = reader.take("const")
        minLength = try reader.count("minLength")
        maxLength = try reader.count("maxLength")
        minimum = try reader.number("minimum")
        maximum = try reader.number("maximum")
        exclusiveMinimum = try reader.number("exclusiveMinimum")
        exclusiveMaximum = try reader.number("exclusiveMaximum")
        pattern = try reader.pattern()
        items = try reader.subschema("items")
        minItems = try reader.count("minItems")
        maxItems = try reader.count("maxItems")
        uniqueItems = try reader.bool("uniqueItems") ?? false
        anyOf = try reader.subschemas("anyOf")
        oneOf = try reader.subschemas("oneOf")
        allOf = try reader.subschemas("allOf")
        for key in reader.remaining where !Self.annotationKeywords.contains(key) && !key.hasPrefix("x-") {
            throw Self.invalid("unsupported keyword \"\(key)\"")
        }
        if let types, let unknown = types.first(where: { !Self.typeNames.contains($0) }) {
            throw Self.invalid("unknown type \"\(unknown)\"")
        }
    }

    static func invalid(_ reason: String) -> MCPError { .internalError("Invalid JSON Schema: \(reason).") }

    /// The first way `value` breaks this schema, or nil when it conforms.
    package func validate(_ value: JSONValue) -> SchemaViolation? {
        var path: [SchemaPath] = []
        return check(value, at: &path)
    }

    /// The schema of property `name`, if declared.
    func property(_ name: String) -> JSONSchema? {
        properties.first { $0.name == name }?.schema
    }
}

/// A `pattern`, checked to compile once; matched with Swift's `Regex` (which is not `Sendable`,
/// so it is rebuilt per use, on the cold `tools/call` path only).
struct SchemaPattern: Sendable {
    let source: String

    init(_ source: String) throws(MCPError) {
        do {
            _ = try Regex(source)
        } catch {
            throw JSONSchema.invalid("pattern \"\(source)\" does not compile")
        }
        self.source = source
    }

    /// ECMA-262 semantics: the pattern may match anywhere unless anchored.
    func matches(_ string: String) -> Bool {
        guard let regex = try? Regex(source) else { return false }
        return string.contains(regex)
    }
}
