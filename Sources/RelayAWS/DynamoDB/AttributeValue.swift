import RelayJSON

/// JSON values as DynamoDB attribute values and back: null `NULL`, booleans `BOOL`, numbers `N`
/// (as their JSON text), strings `S`, arrays `L`, objects `M`. Numbers come back as integers when
/// they have no fraction or exponent and fit `Int`, so `1.0` reads back as `1` (as it does from the
/// JSON the other stores write). DynamoDB numbers hold 38 digits between 1e-130 and 1e126; others
/// fail with a `ValidationException`.
enum AttributeValue {
    static func encode(_ value: JSONValue) -> JSONValue {
        switch value {
        case .null: ["NULL": true]
        case .bool(let flag): ["BOOL": .bool(flag)]
        case .int(let number): ["N": .string(String(number))]
        case .double(let number): number.isFinite ? ["N": .string(JSONValue.double(number).jsonString)] : ["NULL": true]
        case .string(let text): ["S": .string(text)]
        case .array(let elements): ["L": .array(elements.map(encode))]
        case .object(let object): ["M": .object(encode(object))]
        }
    }

    static func encode(_ object: JSONObject) -> JSONObject {
        JSONObject(object.map { ($0.key, encode($0.value)) })
    }

    /// The JSON value of one attribute value, or nil for a type the store never writes.
    static func decode(_ value: JSONValue) -> JSONValue? {
        guard let typed = value.objectValue, typed.count == 1, let (type, inner) = typed.first(where: { _ in true })
        else {
            return nil
        }
        switch type {
        case "NULL": return .null
        case "BOOL": return inner.boolValue.map(JSONValue.bool)
        case "N":
            guard let text = inner.stringValue, let number = try? JSONValue(parsing: text), number.doubleValue != nil
            else { return nil }
            return number
        case "S": return inner.stringValue.map(JSONValue.string)
        case "L":
            guard let elements = inner.arrayValue else { return nil }
            var decoded: [JSONValue] = []
            for element in elements {
                guard let value = decode(element) else { return nil }
                decoded.append(value)
            }
            return .array(decoded)
        case "M":
            return inner.objectValue.flatMap(decode).map(JSONValue.object)
        default:
            return nil
        }
    }

    static func decode(_ object: JSONObject) -> JSONObject? {
        var decoded: [(String, JSONValue)] = []
        for member in object {
            guard let value = decode(member.value) else { return nil }
            decoded.append((member.key, value))
        }
        return JSONObject(decoded)
    }
}
