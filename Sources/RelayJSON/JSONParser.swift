/// Why a JSON document was refused, with the byte offset where parsing stopped.
package struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was wrong.
    package let reason: String
    /// Byte offset into the input.
    package let offset: Int

    package var description: String { "\(reason) at byte \(offset)" }
}

extension JSONValue {
    /// Parses a complete RFC 8259 document: no comments, no trailing commas, no leading zeros,
    /// no unescaped control characters, valid UTF-8, nesting at most `maxDepth` deep.
    package init(parsing bytes: some Collection<UInt8>, maxDepth: Int = 64) throws(JSONParseError) {
        // Bytes already contiguous (an array, a buffer a database row lends) are parsed where they are.
        let result =
            bytes.withContiguousStorageIfAvailable { Self.parse($0, maxDepth: maxDepth) }
            ?? Array(bytes).withUnsafeBufferPointer { Self.parse($0, maxDepth: maxDepth) }
        self = try result.get()
    }

    private static func parse(_ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int) -> Result<JSONValue, JSONParseError>
    {
        var parser = JSONParser(bytes: buffer, maxDepth: maxDepth)
        do throws(JSONParseError) {
            return .success(try parser.parseDocument())
        } catch {
            return .failure(error)
        }
    }

    /// Parses a document held in a string.
    package init(parsing string: String) throws(JSONParseError) {
        try self.init(parsing: Array(string.utf8))
    }
}

/// The RFC 8259 grammar over a byte buffer. `JSONValue(parsing:)` builds a tree with it;
/// `JSONReader` walks a document with the same rules and errors without building one.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0
    var depth = 0
    /// The members of the objects being parsed, innermost last; an object takes its own off the
    /// top when it closes: one growing buffer per document instead of one per object. Arrays share
    /// `elements` the same way. Each starts with room for `initialScratch` members.
    private var members: [(String, JSONValue)] = []
    private var elements: [JSONValue] = []

    private static let initialScratch = 16

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        // A UTF-8 byte order mark is not JSON (RFC 8259 §8.1 lets parsers ignore it; we refuse it).
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected data after the document") }
        return value
    }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(reason: reason, offset: index) }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func parseLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("unexpected end of input") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw fail("invalid literal")
        }
        index += count
        return value
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth { throw fail("nesting too deep") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject())
        }
        if members.capacity == 0 { members.reserveCapacity(Self.initialScratch) }
        let start = members.count
        var names: NameIndex? = nil
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            // A repeated key keeps its first position and its last value (as `JSONObject` does).
            // Up to `scanLimit` members a scan is cheapest; past it a hash index of this object's
            // names keeps the whole object linear (a scan per member made 27,000 distinct keys
            // cost 3 s of CPU: issue 38). `names!` in place, not a copy.
            if names != nil {
                if let existing = names!.position(of: key, orInsert: members.count, in: members) {
                    members[existing].1 = value
                } else {
                    members.append((key, value))
                }
            } else if let existing = members[start...].firstIndex(where: { $0.0 == key }) {
                members[existing].1 = value
            } else {
                members.append((key, value))
                if members.count - start > Self.scanLimit { names = NameIndex(members, from: start) }
            }
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(JSONObject(uniquePairs: Self.take(&members, from: start)))
            } else {
                throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array([])
        }
        if elements.capacity == 0 { elements.reserveCapacity(Self.initialScratch) }
        let start = elements.count
        while true {
            skipWhitespace()
            let element = try parseValue()
            elements.append(element)
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(Self.take(&elements, from: start))
            } else {
                throw fail("expected ',' or ']'")
            }
        }
    }

    /// Members an object may have before its duplicate check switches from a scan to a hash index.
    static let scanLimit = 8

    /// The scratch entries from `start` on, removed from `scratch`. An outermost container
    /// (`start` 0) takes the whole buffer: copying the slice out would share the buffer, and the
    /// removal would then copy whatever is left (the rest of the scratch starts over).
    private static func take<Element>(_ scratch: inout [Element], from start: Int) -> [Element] {
        guard start > 0 else {
            defer { scratch = [] }
            return scratch
        }
        let taken = Array(scratch[start...])
        scratch.removeSubrange(start...)
        return taken
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fail("leading zero in number") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid fraction") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let value = Int(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { throw fail("number out of range") }
        return .double(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try decodeUTF8(slice, at: start)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("control character in string") }
            index += 1
        }
        var scalars = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try scalars.withUnsafeBufferPointer { buffer throws(JSONParseError) in
                    try decodeUTF8(buffer, at: start)
                }
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape(into: &scalars)
            case 0x00..<0x20:
                throw fail("control character in string")
            default:
                scalars.append(byte)
                index += 1
            }
        }
        throw fail("unterminated string")
    }

    private mutating func parseEscape(into output: inout [UInt8]) throws(JSONParseError) {
        guard index < bytes.count else { throw fail("unterminated escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): output.append(0x22)
        case UInt8(ascii: "\\"): output.append(0x5C)
        case UInt8(ascii: "/"): output.append(0x2F)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw fail("unpaired surrogate") }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw fail("unpaired surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid escape") }
            output.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw fail("invalid escape")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private func decodeUTF8(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) throws(JSONParseError) -> String {
        // ASCII needs no validation, and String(validating:) is generic and slow on every call.
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw JSONParseError(reason: "invalid UTF-8 in string", offset: offset)
        }
        return string
    }
}
