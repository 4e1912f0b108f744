/// Writes dates and times as ASCII bytes, one buffer per string.
///
/// Interpolating zero-padded parts (`"\(pad(hour, 2)):\(pad(minute, 2))"`) made a String per
/// part and per join: `get_me` formats four instants and dates per call, and that was a tenth of
/// its own CPU (bench/records/2026-12-02-get_me-path-profile.txt).
enum TimeText {
    /// The string `body` writes (ASCII).
    static func string(_ body: (inout [UInt8]) -> Void) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(32)
        body(&output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends `value` in decimal, left-padded with zeros to `width` digits (a negative value
    /// as `pad` writes it: zeros, then the sign and digits).
    static func append(_ value: Int, width: Int, to output: inout [UInt8]) {
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
