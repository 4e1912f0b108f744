/// CloudKit's rules for record names, checked before a name goes upstream so a bad name is the caller's error,
/// never CloudKit's: "The string must contain only ASCII characters, must not exceed 255 characters, and must
/// not start with an underscore", and it must not be empty (Apple, `CKRecord.ID` `init(recordName:)`,
/// https://developer.apple.com/documentation/cloudkit/ckrecord/id/init(recordname:)).
///
/// Stricter than Apple in one way: control characters (ASCII, but never in a name the app or the relay makes)
/// are refused too, since what CloudKit does with them is not documented.
package enum RecordName {
    /// The longest record name, in bytes (ASCII: one byte a character).
    package static let maxLength = 255

    /// Why `name` cannot be a record name, or nil when it can. `maxLength` is lower when the caller derives longer
    /// names from this one (an Occurrence is `<todoId>|YYYY-MM-DD`).
    package static func problem(_ name: String, maxLength: Int = RecordName.maxLength) -> String? {
        if name.isEmpty { return "must not be empty" }
        if !name.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) {
            return "must contain only ASCII letters, digits and punctuation"
        }
        if name.utf8.count > maxLength { return "must be at most \(maxLength) characters" }
        if name.hasPrefix("_") { return "must not start with an underscore" }
        return nil
    }
}
