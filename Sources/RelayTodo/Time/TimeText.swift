/// Writes dates and times as ASCII bytes, one buffer per string (zero-padded parts written in place).
enum TimeText {
    /// The string `body` writes (ASCII), written into `Buffer`'s inline bytes.
    static func string(_ body: (inout Buffer) -> Void) -> String {
        var buffer = Buffer()
        body(&buffer)
        return buffer.string
    }

    /// Up to 64 bytes held inline (a date-time with its offset is 25), the rest in an array.
    struct Buffer {
        static let inlineCapacity = 64
        private var inline: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        private var inlineCount = 0
        private var spill: [UInt8] = []

        mutating func append(_ byte: UInt8) {
            guard inlineCount < Self.inlineCapacity else {
                spill.append(byte)
                return
            }
            let index = inlineCount
            withUnsafeMutableBytes(of: &inline) { $0[index] = byte }
            inlineCount += 1
        }

        mutating func append(contentsOf bytes: some Sequence<UInt8>) {
            for byte in bytes { append(byte) }
        }

        var string: String {
            var inline = inline
            let head = withUnsafeBytes(of: &inline) { String(decoding: $0.prefix(inlineCount), as: UTF8.self) }
            return spill.isEmpty ? head : head + String(decoding: spill, as: UTF8.self)
        }
    }

    /// Appends `value` in decimal, left-padded with zeros to `width` digits (a negative value
    /// as `pad` writes it: zeros, then the sign and digits).
    static func append(_ value: Int, width: Int, to output: inout Buffer) {
        guard value >= 0 else {
            output.append(contentsOf: pad(value, width).utf8)
            return
        }
        var divisor = 1
        var digits = 1
        while value / divisor >= 10 {
            divisor *= 10
            digits += 1
        }
        for _ in digits..<max(width, digits) { output.append(UInt8(ascii: "0")) }
        var rest = value
        while divisor > 0 {
            output.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}

/// `value` in decimal, left-padded with zeros to `width` digits.
func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
