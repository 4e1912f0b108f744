import Foundation

/// Typed field access for the record codecs. A field of the wrong type is an `.invalidRecord`
/// error naming the field (never its value); a missing field is nil.
extension Record {
    func string(_ name: String) throws(CloudKitError) -> String? {
        switch fields[name] {
        case nil: return nil
        case .string(let value)?: return value
        default: throw wrongType(name, "STRING")
        }
    }

    func int64(_ name: String) throws(CloudKitError) -> Int64? {
        switch fields[name] {
        case nil: return nil
        case .int64(let value)?: return value
        default: throw wrongType(name, "INT64")
        }
    }

    func date(_ name: String) throws(CloudKitError) -> Date? {
        switch fields[name] {
        case nil: return nil
        case .timestamp(let milliseconds)?: return Date(cloudKitMilliseconds: milliseconds)
        default: throw wrongType(name, "TIMESTAMP")
        }
    }

    func requireType(_ expected: String) throws(CloudKitError) {
        guard recordType.isEmpty || recordType == expected else {
            throw CloudKitError(
                .invalidRecord, reason: "record type \(recordType), expected \(expected)", recordName: recordName)
        }
    }

    private func wrongType(_ name: String, _ type: String) -> CloudKitError {
        CloudKitError(.invalidRecord, reason: "field \(name) is not \(type)", recordName: recordName)
    }

    /// Sets or removes a field.
    mutating func set(_ name: String, _ value: String?) { fields[name] = value.map(FieldValue.string) }

    mutating func set(_ name: String, _ value: Int64?) { fields[name] = value.map(FieldValue.int64) }

    mutating func set(_ name: String, _ value: Date?) {
        fields[name] = value.map { .timestamp($0.cloudKitMilliseconds) }
    }

    /// The fields not named in `known`, kept so a write never drops what a newer app added.
    func fields(excluding known: [String]) -> [String: FieldValue] {
        // Usually every field is known: no new dictionary then (a schema's names are a dozen at
        // most, so a linear search beats hashing them into a set on every decode).
        guard fields.keys.contains(where: { !known.contains($0) }) else { return [:] }
        return fields.filter { !known.contains($0.key) }
    }
}

extension Date {
    /// A date from CloudKit's TIMESTAMP (milliseconds since 1970).
    package init(cloudKitMilliseconds milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The date as CloudKit's TIMESTAMP, rounded to the millisecond.
    package var cloudKitMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}
