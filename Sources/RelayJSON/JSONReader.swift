/// Walks a JSON document member by member without building a `JSONValue` tree, for decoders that
/// read a few members of a large document into their own types (CloudKit's record responses).
///
/// It accepts and refuses exactly what `JSONValue(parsing:)` does, with the same errors: every
/// value is checked, the ones skipped included (grammar, UTF-8, number range, nesting depth),
/// and `read(_:maxDepth:_:)` refuses trailing data. What it does not do is decide about repeated
/// member names: `JSONValue` keeps the last value of a repeated name, and a decoder that must
/// agree does the same (assign on every occurrence).
package struct JSONReader {
    private var parser: JSONParser

    private init(parser: JSONParser) { self.parser = parser }

    /// Runs `body` on a reader at the start of `bytes`, then checks that the document ends where
    /// `body` left it. `body` reads the one top-level value.
    package static func read<Value>(
        _ bytes: [UInt8], maxDepth: Int = 64, _ body: (inout JSONReader) throws(JSONParseError) -> Value
    ) throws(JSONParseError) -> Value {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> Value in
            try read(buffer, maxDepth: maxDepth, body)
        }
    }

    /// `read(_:maxDepth:_:)` of bytes the caller holds (a database row where it lies).
    package static func read<Value>(
        _ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int = 64,
        _ body: (inout JSONReader) throws(JSONParseError) -> Value
    ) throws(JSONParseError) -> Value {
        var reader = JSONReader(parser: JSONParser(bytes: buffer, maxDepth: maxDepth))
        reader.parser.skipWhitespace()
        let value = try body(&reader)
        reader.parser.skipWhitespace()
        guard reader.parser.index == buffer.count else {
            throw reader.parser.fail("unexpected data after the document")
        }
        return value
    }

    /// A member name, valid only during the call it is passed to.
    package struct Key {
        /// The name's UTF-8 bytes, escapes decoded.
        let bytes: UnsafeBufferPointer<UInt8>

        /// Whether the name is `name`, compared byte for byte.
        package static func == (key: Key, name: StaticString) -> Bool {
            key.bytes.count == name.utf8CodeUnitCount
                && (0..<key.bytes.count).allSatisfy { key.bytes[$0] == name.utf8Start[$0] }
        }

        /// Whether the name is `name`, compared byte for byte in place.
        package static func == (key: Key, name: String) -> Bool {
            guard name.utf8.count == key.bytes.count else { return false }
            return name.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(key.bytes) }
                ?? name.utf8.elementsEqual(key.bytes)
        }

        /// The name as a string.
        package var string: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// Reads the next value if it is an object, calling `member` once per member in order with the
    /// reader positioned at the member's value; `member` must read or skip that value. A value of
    /// another type is skipped and false returned.
    @discardableResult
    package mutating func readObject(
        _ member: (inout JSONReader, Key) throws(JSONParseError) -> Void
    ) throws(JSONParseError) -> Bool {
        guard let empty = try enter(UInt8(ascii: "{"), closedBy: UInt8(ascii: "}")) else { return false }
        if empty { return true }
        repeat {
            parser.skipWhitespace()
            guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "\"") else {
                throw parser.fail("expected a member name")
            }
            if let raw = try scanPlainString() {
                try readMemberValue(Key(bytes: raw), member)
            } else {
                // Escapes in the name (rare): decoded into a string of its own.
                let name = Array(try parser.parseString().utf8)
                try name.withUnsafeBufferPointer { bytes in
                    Result { () throws(JSONParseError) in try readMemberValue(Key(bytes: bytes), member) }
                }.get()
            }
        } while try !next(closedBy: UInt8(ascii: "}"))
        return true
    }

    private mutating func readMemberValue(
        _ key: Key, _ member: (inout JSONReader, Key) throws(JSONParseError) -> Void
    ) throws(JSONParseError) {
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: ":") else {
            throw parser.fail("expected ':'")
        }
        parser.index += 1
        parser.skipWhitespace()
        let before = parser.index
        try member(&self, key)
        // A member that read nothing would leave the reader inside the object: a decoder's bug.
        precondition(parser.index > before, "JSONReader: a member's value was neither read nor skipped")
    }

    /// Reads the next value if it is an array, calling `element` once per element in order; it must
    /// read or skip the element. A value of another type is skipped and false returned.
    @discardableResult
    package mutating func readArray(_ element: (inout JSONReader) throws(JSONParseError) -> Void)
        throws(JSONParseError) -> Bool
    {
        guard let empty = try enter(UInt8(ascii: "["), closedBy: UInt8(ascii: "]")) else { return false }
        if empty { return true }
        repeat {
            parser.skipWhitespace()
            let before = parser.index
            try element(&self)
            precondition(parser.index > before, "JSONReader: an element was neither read nor skipped")
        } while try !next(closedBy: UInt8(ascii: "]"))
        return true
    }

    /// Steps into the object or array that `open` starts, if the next value is one: nil when it is
    /// not (the value is skipped), else whether it closes at once (`{}`, `[]`; then it is left).
    private mutating func enter(_ open: UInt8, closedBy close: UInt8) throws(JSONParseError) -> Bool? {
        guard try peek() == open else {
            try skip()
            return nil
        }
        try parser.enter()
        parser.index += 1
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count, parser.bytes[parser.index] == close else { return false }
        parser.index += 1
        parser.depth -= 1
        return true
    }

    /// After a member or an element: false past a comma (another follows), true when `close` ends the
    /// container (it is left).
    private mutating func next(closedBy close: UInt8) throws(JSONParseError) -> Bool {
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count else { throw parser.fail("unexpected end of input") }
        switch parser.bytes[parser.index] {
        case UInt8(ascii: ","):
            parser.index += 1
            return false
        case close:
            parser.index += 1
            parser.depth -= 1
            return true
        default:
            throw parser.fail(close == UInt8(ascii: "}") ? "expected ',' or '}'" : "expected ',' or ']'")
        }
    }

    /// The next value if it is a string; any other value is skipped and nil returned.
    package mutating func readString() throws(JSONParseError) -> String? {
        guard try peek() == UInt8(ascii: "\"") else {
            try skip()
            return nil
        }
        return try parser.parseString()
    }

    /// The next value as `JSONValue.boolValue` reads it.
    package mutating func readBool() throws(JSONParseError) -> Bool? {
        let first = try peek()
        if first == UInt8(ascii: "t") || first == UInt8(ascii: "f") { return try readValue().boolValue }
        try skip()
        return nil
    }

    /// The next value, whatever it is, as a tree (for the small values a decoder keeps whole).
    package mutating func readValue() throws(JSONParseError) -> JSONValue {
        try parser.parseValue()
    }

    /// Checks the next value and moves past it; a string is not copied unless it has escapes.
    package mutating func skipValue() throws(JSONParseError) {
        try skip()
    }

    /// Skips and checks one value.
    private mutating func skip() throws(JSONParseError) {
        switch try peek() {
        case UInt8(ascii: "{"):
            try readObject { reader, _ throws(JSONParseError) in try reader.skipValue() }
        case UInt8(ascii: "["):
            try readArray { reader throws(JSONParseError) in try reader.skipValue() }
        case UInt8(ascii: "\""):
            if try scanPlainString() == nil { _ = try parser.parseString() }
        default:
            // Numbers and literals are short: the parser checks them (range included) on its own.
            _ = try parser.parseValue()
        }
    }

    /// The first byte of the next value; throws at the end of the input.
    private mutating func peek() throws(JSONParseError) -> UInt8 {
        guard parser.index < parser.bytes.count else { throw parser.fail("unexpected end of input") }
        return parser.bytes[parser.index]
    }

    /// At an opening quote: a string without escapes is checked (control characters, UTF-8) and
    /// returned as the bytes between its quotes, the reader past it. A string with an escape
    /// returns nil with the reader still at its opening quote, for `parseString` to decode.
    private mutating func scanPlainString() throws(JSONParseError) -> UnsafeBufferPointer<UInt8>? {
        let quote = parser.index
        var index = quote + 1
        var ascii = true
        while index < parser.bytes.count {
            let byte = parser.bytes[index]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: parser.bytes[(quote + 1)..<index])
                if !ascii, !Self.isValidUTF8(raw) {
                    throw JSONParseError(reason: "invalid UTF-8 in string", offset: quote + 1)
                }
                parser.index = index + 1
                return raw
            }
            if byte == UInt8(ascii: "\\") { return nil }
            if byte < 0x20 {
                parser.index = index
                throw parser.fail("control character in string")
            }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        parser.index = index
        throw parser.fail("unterminated string")
    }

    private static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
