/// The 2026-07-28 encoding of values mirrored into headers (`Mcp-Name`, `Mcp-Param-*`): plain visible
/// ASCII as is, anything else as `=?base64?<standard base64 of the UTF-8>?=`
/// (`basic/transports/streamable-http.mdx`, "Value Encoding").
enum HeaderValue {
    private static let prefix = Array("=?base64?".utf8)
    private static let suffix = Array("?=".utf8)

    /// Whether every byte is visible ASCII, space or tab: what a routing header may carry.
    static func isPlain(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == 0x09 || (0x20...0x7E).contains($0) }
    }

    /// The value a header carries: decoded when it uses the sentinel, verbatim otherwise; nil when
    /// the sentinel wraps something that is not canonical base64 of UTF-8 (so a corrupt header can
    /// never match a body value by accident).
    static func decode(_ value: String) -> String? {
        let bytes = Array(value.utf8)
        guard bytes.count >= prefix.count + suffix.count, bytes.starts(with: prefix),
            bytes.suffix(2).elementsEqual(suffix)
        else { return value }
        guard let decoded = base64(bytes[prefix.count..<(bytes.count - suffix.count)]) else { return nil }
        return String(validating: decoded, as: UTF8.self)
    }

    /// Standard base64 with padding, canonical only (unused bits zero), nil otherwise.
    static func base64(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3)
        var index = text.startIndex
        while index < text.endIndex {
            let quad = text[index..<(index + 4)]
            index += 4
            let padding = quad.reversed().prefix { $0 == UInt8(ascii: "=") }.count
            guard padding <= 2, index == text.endIndex || padding == 0 else { return nil }
            var bits: UInt32 = 0
            for byte in quad.prefix(4 - padding) {
                guard let sextet = sextet(byte) else { return nil }
                bits = bits << 6 | UInt32(sextet)
            }
            bits <<= UInt32(6 * padding)
            let decoded = [
                UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 8),
                UInt8(truncatingIfNeeded: bits),
            ]
            // Non-zero bits under the padding would make two encodings of one value.
            if padding == 2, decoded[1] != 0 || decoded[2] != 0 { return nil }
            if padding == 1, decoded[2] != 0 { return nil }
            output.append(contentsOf: decoded.prefix(3 - padding))
        }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
