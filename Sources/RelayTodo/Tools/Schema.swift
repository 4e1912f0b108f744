import RelayJSON

/// Building blocks of the tools' JSON Schemas (draft 2020-12, everything inline so that clients which do
/// not resolve `$ref` still understand them).
enum Schema {
    /// An object schema; `closed` forbids members not listed (used for inputs).
    static func object(
        _ properties: [(String, JSONValue)], required: [String] = [], closed: Bool = false, description: String? = nil,
        nullable: Bool = false
    ) -> JSONValue {
        var schema: JSONObject = ["type": nullable ? ["object", "null"] : "object"]
        if let description { schema["description"] = .string(description) }
        schema["properties"] = .object(JSONObject(properties))
        if !required.isEmpty { schema["required"] = .array(required.map(JSONValue.string)) }
        if closed { schema["additionalProperties"] = false }
        return .object(schema)
    }

    /// A string schema.
    static func string(
        _ description: String? = nil, nullable: Bool = false, enumeration: [String]? = nil,
        minLength: Int? = nil, maxLength: Int? = nil, pattern: String? = nil
    ) -> JSONValue {
        var schema: JSONObject = ["type": nullable ? ["string", "null"] : "string"]
        if let description { schema["description"] = .string(description) }
        if let enumeration {
            schema["enum"] = .array(enumeration.map(JSONValue.string) + (nullable ? [.null] : []))
        }
        if let minLength { schema["minLength"] = .int(minLength) }
        if let maxLength { schema["maxLength"] = .int(maxLength) }
        if let pattern { schema["pattern"] = .string(pattern) }
        return .object(schema)
    }

    /// An integer schema.
    static func integer(_ description: String? = nil, range: ClosedRange<Int>? = nil, values: [Int]? = nil)
        -> JSONValue
    {
        var schema: JSONObject = ["type": "integer"]
        if let description { schema["description"] = .string(description) }
        if let range {
            schema["minimum"] = .int(range.lowerBound)
            schema["maximum"] = .int(range.upperBound)
        }
        if let values { schema["enum"] = .array(values.map(JSONValue.int)) }
        return .object(schema)
    }

    /// A boolean schema.
    static func boolean(_ description: String? = nil) -> JSONValue {
        description.map { ["type": "boolean", "description": .string($0)] } ?? ["type": "boolean"]
    }

    /// An array schema.
    static func array(of items: JSONValue, description: String? = nil) -> JSONValue {
        var schema: JSONObject = ["type": "array", "items": items]
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }

    /// A `YYYY-MM-DD` input.
    static func date(_ description: String) -> JSONValue {
        string(description, pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
    }

    /// An instant in a result: ISO 8601 with the Account offset, or null. Output schemas stay terse: they are
    /// repeated in every tool and the whole `tools/list` lands in the model's context.
    static let instant = string(nullable: true)

    /// A non-null instant in a result.
    static let requiredInstant = string()

    /// The account time zone member every result carries.
    static let timeZone = string("The account time zone; times in this result carry its UTC offset.")
    /// The Account's quiet hours (`{start, end}` wall-clock times, may wrap midnight), null when off.
    static let quietHours = object(
        [("start", string("HH:mm.")), ("end", string("HH:mm."))], required: ["start", "end"], nullable: true)
    /// `complete` of a listing.
    static let completeness = boolean(
        "Whether every record this answer needs was read. When false, some to-dos may be missing: repeat warning.")
    /// `warning` of a listing.
    static let warning = string("Present when complete is false: tell the user this, in their language.")

    /// The `sound` enum.
    static let sounds = Sound.allCases.map(\.rawValue)

    /// `id` input.
    static let id = string("The to-do's id (from list_todos or add_todo).", minLength: 1)

    /// A time input (`due`, `until`).
    static func timeInput(_ what: String) -> JSONValue {
        string(
            "\(what) YYYY-MM-DDTHH:mm = wall-clock time in the account time zone (get_me); YYYY-MM-DD = that day "
                + "at the account's default time; or an exact ISO 8601 time with offset such as "
                + "2026-03-09T07:30:00+09:00 or …Z.")
    }
}

extension Schema {
    /// `schema` that also accepts null.
    static func nullable(_ schema: JSONValue) -> JSONValue {
        guard case .object(var object) = schema, let type = object["type"]?.stringValue else { return schema }
        object["type"] = [.string(type), "null"]
        return .object(object)
    }
}
