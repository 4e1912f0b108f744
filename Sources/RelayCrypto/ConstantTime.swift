/// Comparisons whose running time does not depend on where two secrets differ.
package enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes. Lengths are not secret: different lengths
    /// return false at once; equal lengths are compared in constant time (CRYPTO_memcmp).
    package static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return LibCrypto.memoryEquals(a, b)
    }

    /// The same comparison over the UTF-8 bytes of two strings (tokens, checksums, CSRF values).
    package static func equals(_ a: String, _ b: String) -> Bool {
        equals(Array(a.utf8), Array(b.utf8))
    }
}
