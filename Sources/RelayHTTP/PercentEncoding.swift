/// RFC 3986 percent-encoding (§2.1, §2.3): every byte but the unreserved ones becomes `%XX` with
/// uppercase hex digits. One definition for query strings and form bodies, CloudKit URLs, SigV4's
/// canonical request and PKCE's verifier alphabet.
package enum PercentEncoding {
    /// `ALPHA / DIGIT / "-" / "." / "_" / "~"`: the only bytes left as they are.
    @inline(__always)
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// An uppercase hexadecimal digit for `nibble` (0–15).
    @inline(__always)
    package static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }

    /// The value (0–15) of a hexadecimal digit in either case; nil for any other byte.
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `text` encoded. `kept` names one more byte left as it is (SigV4 keeps `/` in paths).
    package static func encode(_ text: String, keeping kept: UInt8? = nil) -> String {
        var text = text
        return text.withUTF8 { encode(bytes: $0, keeping: kept) }
    }

    /// `bytes` (which need not be UTF-8: SigV4 re-encodes decoded query bytes) encoded.
    package static func encode(bytes: [UInt8], keeping kept: UInt8? = nil) -> String {
        bytes.withUnsafeBufferPointer { encode(bytes: $0, keeping: kept) }
    }

    /// Appends `text` encoded to `output`.
    package static func append(_ text: String, to output: inout [UInt8], keeping kept: UInt8? = nil) {
        var text = text
        text.withUTF8 { append(bytes: $0, to: &output, keeping: kept) }
    }

    private static func encode(bytes: UnsafeBufferPointer<UInt8>, keeping kept: UInt8?) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 3 / 2)
        append(bytes: bytes, to: &output, keeping: kept)
        return String(decoding: output, as: UTF8.self)
    }

    /// Unreserved runs are copied whole (a 1 KB token is mostly letters and digits); only the bytes
    /// between them are appended one by one.
    private static func append(bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8], keeping kept: UInt8?) {
        var runStart = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if isUnreserved(byte) || byte == kept { continue }
            if runStart < index {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            }
            output.append(UInt8(ascii: "%"))
            output.append(hexDigit(byte >> 4))
            output.append(hexDigit(byte & 0x0F))
            runStart = index + 1
        }
        if runStart < bytes.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    }
}
