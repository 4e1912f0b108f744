extension JSONValue {
    /// The compact UTF-8 encoding of this value.
    package var bytes: [UInt8] { bytes(reservingCapacity: 256) }

    /// The compact encoding, written into room for `capacity` bytes at first (a caller that expects
    /// a large document saves the growth at 256, 512, 1,024… with a copy each).
    package func bytes(reservingCapacity capacity: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(capacity)
        write(into: &output)
        return output
    }

    /// The compact encoding as a string.
    package var jsonString: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends the compact encoding to `output`.
    package func write(into output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): output.append(contentsOf: String(value).utf8)
        case .double(let value): Self.writeDouble(value, into: &output)
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            // Elements lent, not copied out.
            elements.withUnsafeBufferPointer { elements in
                for index in elements.indices {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    elements[index].write(into: &output)
                }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            var first = true
            object.forEachMember { key, value in
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                Self.writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                value.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeDouble(_ value: Double, into output: inout [UInt8]) {
        guard value.isFinite else {
            output.append(contentsOf: "null".utf8)
            return
        }
        if value.rounded() == value && abs(value) < 1e15 {
            output.append(contentsOf: String(Int(value)).utf8)
        } else {
            output.append(contentsOf: "\(value)".utf8)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Writes a JSON string literal, escaping quotes, backslashes and control characters.
    ///
    /// Copies the runs between escapes in one go: most strings have nothing to escape, and a
    /// tool result's text (JSON inside a string) has long runs between its quotes.
    package static func writeString(_ string: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Native and small strings lend their bytes; others are copied to read them (`withUTF8`).
        if string.utf8.withContiguousStorageIfAvailable({ writeEscaped($0, into: &output) }) == nil {
            var string = string
            string.withUTF8 { writeEscaped($0, into: &output) }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        var runStart = 0
        var index = 0
        while index < bytes.count {
            // Eight bytes at a time while none of them needs escaping (a sealed token, a long text).
            if index + 8 <= bytes.count,
                !needsEscape(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
            {
                index += 8
                continue
            }
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            if runStart < index {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            }
            index += 1
            runStart = index
            output.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
            case 0x0A: output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(UInt8(ascii: "r"))
            case 0x09: output.append(UInt8(ascii: "t"))
            default:
                output.append(UInt8(ascii: "u"))
                output.append(UInt8(ascii: "0"))
                output.append(UInt8(ascii: "0"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        if runStart < bytes.count {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
    }

    /// Whether any of the eight bytes in `word` is a control character, `"` or `\\` (the classic
    /// SWAR tests: a byte below 0x20, or a zero byte after XOR with the character).
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        let control = (word &- ones &* 0x20) & ~word & highs != 0
        return control || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
    }
}
