import Foundation
import RelayJSON

/// Reading and writing CloudKit Web Services field values (`{"value": …, "type": "…"}`,
/// `reference/cloudkit-ws.md` §4) for the three record types of `spec/cloudkit.md`.
enum RecordFields {
    /// A STRING field.
    static func string(_ value: String?) -> JSONValue {
        ["value": value.map(JSONValue.string) ?? .null, "type": "STRING"]
    }

    /// A TIMESTAMP field: integer milliseconds since 1970.
    static func timestamp(_ value: Date?) -> JSONValue {
        ["value": value.map { .int(Int(($0.timeIntervalSince1970 * 1000).rounded())) } ?? .null, "type": "TIMESTAMP"]
    }

    /// An INT64 field.
    static func int(_ value: Int?) -> JSONValue { ["value": value.map(JSONValue.int) ?? .null, "type": "INT64"] }

    /// The string in field `name`, nil when absent, null or not a string.
    static func string(_ fields: JSONObject, _ name: String) -> String? { fields[name]?["value"]?.stringValue }

    /// The instant in TIMESTAMP field `name` (integer or float milliseconds; a numeric string is accepted too).
    static func timestamp(_ fields: JSONObject, _ name: String) -> Date? {
        guard let value = fields[name]?["value"] else { return nil }
        let milliseconds = value.doubleValue ?? value.stringValue.flatMap(Double.init)
        guard let milliseconds, milliseconds.isFinite else { return nil }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }

    /// The integer in INT64 field `name` (a string when the request asked for `numbersAsStrings`).
    static func int(_ fields: JSONObject, _ name: String) -> Int? {
        guard let value = fields[name]?["value"] else { return nil }
        return value.intValue ?? value.stringValue.flatMap { Int($0) }
    }
}
