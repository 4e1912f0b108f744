/// CloudKit's rules for record names: "The string must contain only ASCII characters, must not exceed 255
/// characters, and must not start with an underscore", and it must not be empty (Apple, `CKRecord.ID`
/// `init(recordName:)`). The native framework throws before sending; what Web Services answers is not
/// documented, so the emulator refuses such a name with BAD_REQUEST on that item, in its own words.
enum RecordNameRules {
    static let maxBytes = 255

    /// Why `name` is not a record name, or nil when it is one.
    static func problem(_ name: String) -> String? {
        if name.isEmpty { return "recordName must not be empty" }
        if !name.utf8.allSatisfy({ $0 < 0x80 }) { return "recordName must contain only ASCII characters" }
        if name.utf8.count > maxBytes { return "recordName must not exceed \(maxBytes) characters" }
        if name.hasPrefix("_") { return "recordName must not start with an underscore" }
        return nil
    }
}
