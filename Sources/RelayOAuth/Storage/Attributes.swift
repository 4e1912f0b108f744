import RelayCrypto
import RelayJSON

/// Typed reads of stored attributes. A missing or mistyped attribute reads as nil, and the record
/// that needs it refuses to decode: a damaged item behaves like an absent one.
extension JSONObject {
    func string(_ name: String) -> String? { self[name]?.stringValue }

    func int(_ name: String) -> Int? { self[name]?.intValue }

    func bool(_ name: String) -> Bool? { self[name]?.boolValue }

    func strings(_ name: String) -> [String]? {
        guard let array = self[name]?.arrayValue else { return nil }
        let strings = array.compactMap(\.stringValue)
        return strings.count == array.count ? strings : nil
    }

    /// Bytes stored as base64url text.
    func bytes(_ name: String) -> [UInt8]? { string(name).flatMap(Base64URL.decode) }

    /// Sets `name` to `value`, or removes it when `value` is nil.
    mutating func set(_ name: String, _ value: JSONValue?) { self[name] = value }
}

extension JSONValue {
    /// Bytes as base64url text.
    static func bytes(_ bytes: [UInt8]) -> JSONValue { .string(Base64URL.encode(bytes)) }

    /// A list of strings.
    static func strings(_ strings: [String]) -> JSONValue { .array(strings.map(JSONValue.string)) }
}
