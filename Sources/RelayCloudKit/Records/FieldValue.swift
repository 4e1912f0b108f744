import RelayJSON

/// One field value in CloudKit's wire form `{"value": V, "type": "TAG"}`.
///
/// The two wide payloads (a reference's three strings, an unknown type's tag and JSON) are boxed.
package enum FieldValue: Sendable, Equatable {
    /// `STRING`.
    case string(String)
    /// `INT64` (booleans are 0 or 1).
    case int64(Int64)
    /// `DOUBLE`.
    case double(Double)
    /// `TIMESTAMP`: milliseconds since 1970-01-01 UTC.
    case timestamp(Int64)
    /// `BYTES`: standard padded base64, as sent.
    case bytes(String)
    /// `REFERENCE`.
    indirect case reference(RecordReference)
    /// `STRING_LIST`.
    case stringList([String])
    /// `INT64_LIST`.
    case int64List([Int64])
    /// `DOUBLE_LIST`.
    case doubleList([Double])
    /// `TIMESTAMP_LIST`.
    case timestampList([Int64])
    /// Any other type (LOCATION, ASSETID, …), kept as it came so it can be written back.
    indirect case other(type: String?, value: JSONValue)

    /// The wire type tag.
    package var type: String? {
        switch self {
        case .string: "STRING"
        case .int64: "INT64"
        case .double: "DOUBLE"
        case .timestamp: "TIMESTAMP"
        case .bytes: "BYTES"
        case .reference: "REFERENCE"
        case .stringList: "STRING_LIST"
        case .int64List: "INT64_LIST"
        case .doubleList: "DOUBLE_LIST"
        case .timestampList: "TIMESTAMP_LIST"
        case .other(let type, _): type
        }
    }

    /// The bare value.
    package var value: JSONValue {
        switch self {
        case .string(let text): .string(text)
        case .int64(let number), .timestamp(let number): .int(Int(number))
        case .double(let number): .double(number)
        case .bytes(let base64): .string(base64)
        case .reference(let reference): reference.json
        case .stringList(let list): .array(list.map { .string($0) })
        case .int64List(let list), .timestampList(let list): .array(list.map { .int(Int($0)) })
        case .doubleList(let list): .array(list.map { .double($0) })
        case .other(_, let value): value
        }
    }

    /// `{"value": …, "type": …}`.
    package var json: JSONValue {
        var object: JSONObject = ["value": value]
        if let type { object["type"] = .string(type) }
        return .object(object)
    }

    /// Decodes `{"value": …, "type": …}`. A missing type is inferred from the value; numbers sent
    /// as strings (`numbersAsStrings`) are accepted for INT64, DOUBLE and TIMESTAMP.
    package init(json: JSONValue) throws(CloudKitError) {
        guard let object = json.objectValue, let value = object["value"] else {
            throw CloudKitError(.invalidResponse, reason: "a field is not {value, type}")
        }
        try self.init(value: value, type: object["type"]?.stringValue)
    }

    /// Decodes a field's `value` and `type` members (`RecordsBody` reads them from the bytes).
    init(value: JSONValue, type: String?) throws(CloudKitError) {
        guard let decoded = Self.decode(value, type: type ?? Self.inferredType(value)) else {
            throw CloudKitError(.invalidResponse, reason: "a field's value does not match its type \(type ?? "-")")
        }
        self = decoded
    }

    private static func decode(_ value: JSONValue, type: String?) -> FieldValue? {
        switch type {
        case "STRING": value.stringValue.map(FieldValue.string)
        case "INT64": integer(value).map(FieldValue.int64)
        case "TIMESTAMP": integer(value).map(FieldValue.timestamp)
        case "DOUBLE": number(value).map(FieldValue.double)
        case "BYTES": value.stringValue.map(FieldValue.bytes)
        case "REFERENCE": RecordReference(json: value).map(FieldValue.reference)
        case "STRING_LIST": list(value, \.stringValue).map(FieldValue.stringList)
        case "INT64_LIST": list(value, integer).map(FieldValue.int64List)
        case "TIMESTAMP_LIST": list(value, integer).map(FieldValue.timestampList)
        case "DOUBLE_LIST": list(value, number).map(FieldValue.doubleList)
        default: .other(type: type, value: value)
        }
    }

    private static func inferredType(_ value: JSONValue) -> String? {
        switch value {
        case .string: "STRING"
        case .int: "INT64"
        case .double: "DOUBLE"
        case .array(let items):
            switch items.first {
            case .string?: "STRING_LIST"
            case .int?: "INT64_LIST"
            case .double?: "DOUBLE_LIST"
            default: nil
            }
        default: nil
        }
    }

    private static func integer(_ value: JSONValue) -> Int64? {
        switch value {
        case .int(let number): Int64(number)
        case .double(let number) where number.isFinite && abs(number) < 9.2e18: Int64(number.rounded())
        case .string(let text): Int64(text) ?? Double(text).flatMap { $0.isFinite ? Int64($0.rounded()) : nil }
        default: nil
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        if case .string(let text) = value { return Double(text) }
        return value.doubleValue
    }

    private static func list<T>(_ value: JSONValue, _ element: (JSONValue) -> T?) -> [T]? {
        guard let items = value.arrayValue else { return nil }
        var result: [T] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard let decoded = element(item) else { return nil }
            result.append(decoded)
        }
        return result
    }
}

/// A `REFERENCE` value.
package struct RecordReference: Sendable, Equatable {
    /// The target record.
    package var recordName: String
    /// The target's zone, when not the referring record's.
    package var zoneName: String?
    /// `NONE`, `DELETE_SELF` or `VALIDATE`.
    package var action: String

    /// A reference.
    package init(recordName: String, zoneName: String? = nil, action: String = "NONE") {
        self.recordName = recordName
        self.zoneName = zoneName
        self.action = action
    }

    init?(json: JSONValue) {
        guard let name = json["recordName"]?.stringValue else { return nil }
        recordName = name
        zoneName = json["zoneID"]?["zoneName"]?.stringValue
        action = json["action"]?.stringValue ?? "NONE"
    }

    var json: JSONValue {
        var object: JSONObject = ["recordName": .string(recordName), "action": .string(action)]
        if let zoneName { object["zoneID"] = ["zoneName": .string(zoneName)] }
        return .object(object)
    }
}
