import RelayHTTP

/// The string rules of SigV4: URI encoding, path normalization, timestamps and hex.
enum SigV4Encoding {
    /// RFC 3986 unreserved characters: the only bytes left unencoded.
    static func isUnreserved(_ byte: UInt8) -> Bool { PercentEncoding.isUnreserved(byte) }

    private static let lowerHex = Array("0123456789abcdef".utf8)

    /// Percent-encodes every byte but the unreserved ones (and `/` when `keepSlash`), with
    /// uppercase hex digits, as SigV4 requires.
    static func uriEncode(_ text: String, keepSlash: Bool = false) -> String {
        PercentEncoding.encode(text, keeping: keepSlash ? UInt8(ascii: "/") : nil)
    }

    /// The same for raw bytes (a decoded query component need not be UTF-8).
    static func uriEncode(bytes: [UInt8]) -> String { PercentEncoding.encode(bytes: bytes) }

    /// Decodes `%XX` escapes; a `%` not followed by two hex digits stays as it is.
    static func percentDecode(_ text: Substring) -> [UInt8] {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = PercentEncoding.hexValue(bytes[index + 1]),
                let low = PercentEncoding.hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }

    /// RFC 3986 section 5.2.4 dot-segment removal plus collapsing of empty segments, keeping a
    /// trailing slash: what every service but S3 expects.
    static func normalizePath(_ path: String) -> String {
        var segments: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        let last = path.split(separator: "/", omittingEmptySubsequences: false).last
        let trailingSlash = !segments.isEmpty && (path.hasSuffix("/") || last == "." || last == "..")
        return "/" + segments.joined(separator: "/") + (trailingSlash ? "/" : "")
    }

    /// Lowercase hex of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2)
        for byte in bytes { output += [lowerHex[Int(byte >> 4)], lowerHex[Int(byte & 0x0F)]] }
        return String(decoding: output, as: UTF8.self)
    }

    /// `YYYYMMDD'T'HHMMSS'Z'` in UTC for seconds since the epoch (the proleptic Gregorian
    /// calendar, by Howard Hinnant's days-from-civil inverse).
    static func amzDate(epochSeconds: Int) -> String {
        let days = epochSeconds >= 0 ? epochSeconds / 86_400 : (epochSeconds - 86_399) / 86_400
        let secondOfDay = epochSeconds - days * 86_400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(year, 4) + pad(month, 2) + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2)
            + pad(secondOfDay / 60 % 60, 2) + pad(secondOfDay % 60, 2) + "Z"
    }
}
