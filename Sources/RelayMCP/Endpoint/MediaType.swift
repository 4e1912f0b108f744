/// Byte-level reading of `Content-Type` and `Accept`, which every POST needs: String's
/// Character-based splitting cost a fifth of a `tools/list` request.
enum MediaType {
    /// A media type as lowercase ASCII bytes.
    struct Name {
        let bytes: [UInt8]

        init(_ name: StaticString) {
            bytes = Array(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        }

        /// Whether `candidate` spells this name, ASCII case-insensitively.
        func matches(_ candidate: UnsafeBufferPointer<UInt8>) -> Bool {
            guard candidate.count == bytes.count else { return false }
            for index in 0..<bytes.count {
                let byte = candidate[index]
                if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != bytes[index] { return false }
            }
            return true
        }
    }

    static let json = Name("application/json")
    static let applicationAny = Name("application/*")
    static let any = Name("*/*")
    static let eventStream = Name("text/event-stream")
    static let textAny = Name("text/*")

    /// Calls `body` with each media type listed in a header value (parameters and surrounding
    /// whitespace dropped), in order, until it returns true; reports whether one did.
    static func first(in value: String, where body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        var value = value
        return value.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                var end = index
                while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
                var typeEnd = index
                while typeEnd < end, bytes[typeEnd] != UInt8(ascii: ";") { typeEnd += 1 }
                var start = index
                while start < typeEnd, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
                while typeEnd > start, bytes[typeEnd - 1] == 0x20 || bytes[typeEnd - 1] == 0x09 { typeEnd -= 1 }
                if start < typeEnd, body(UnsafeBufferPointer(rebasing: bytes[start..<typeEnd])) { return true }
                index = end + 1
            }
            return false
        }
    }

    /// Whether a `Content-Type` value is `application/json` (any parameters).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        var first = true
        return Self.first(in: contentType) { type in
            defer { first = false }
            return first && json.matches(type)
        }
    }
}
