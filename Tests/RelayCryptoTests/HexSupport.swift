/// Test support: hex strings to bytes and back.
func hex(_ string: String) -> [UInt8] {
    let digits = Array(string.utf8)
    precondition(digits.count % 2 == 0, "odd hex length")
    return stride(from: 0, to: digits.count, by: 2).map { index in
        UInt8(String(decoding: digits[index..<(index + 2)], as: UTF8.self), radix: 16)!
    }
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}

extension Array where Element == UInt8 {
    /// A copy with one bit flipped.
    func flipping(bit: Int, ofByte index: Int) -> [UInt8] {
        var copy = self
        copy[index] ^= UInt8(1 << bit)
        return copy
    }
}
