/// Character classes from RFC 9110 §5.6.2 (token) and §5.5 (field values), as lookup tables.
enum ByteClass {
    static let cr: UInt8 = 13
    static let lf: UInt8 = 10
    static let space: UInt8 = 32
    static let tab: UInt8 = 9
    static let colon: UInt8 = 58

    /// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    static let token: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(byte)] = true }
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(byte)] = true }
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(byte)] = true }
        for byte in "!#$%&'*+-.^_`|~".utf8 { table[Int(byte)] = true }
        return table
    }()

    /// field-vchar / SP / HTAB, obs-text allowed; every other control byte (NUL, DEL, CR, LF…) refused.
    static let fieldValue: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in 0x21...0x7E { table[byte] = true }
        for byte in 0x80...0xFF { table[byte] = true }
        table[Int(space)] = true
        table[Int(tab)] = true
        return table
    }()

    /// Request-target bytes: visible ASCII only (anything else must be percent-encoded).
    static func isTargetByte(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
