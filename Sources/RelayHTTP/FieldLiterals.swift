#if canImport(Glibc)
    import Glibc
#endif

/// Field names and values that arrive on most messages: when the bytes are exactly one of them,
/// the parsers (`HeadParser`) take the literal instead of making a new string.
enum FieldLiterals {
    /// The literal of `literals` whose bytes are `bytes` (ASCII case folded when `foldingCase`:
    /// `literals` are then lower case), or nil.
    static func match(_ bytes: UnsafeRawBufferPointer, in literals: [String], foldingCase: Bool = false) -> String? {
        guard bytes.count > 15 else { return nil }
        for literal in literals where literal.utf8.count == bytes.count {
            let same =
                foldingCase
                ? literal.utf8.withContiguousStorageIfAvailable { literal in
                    (0..<literal.count).allSatisfy { literal[$0] == ByteClass.lowercased(bytes[$0]) }
                } ?? zip(literal.utf8, bytes).allSatisfy { $0 == ByteClass.lowercased($1) }
                : Self.same(literal, bytes)
            if same { return literal }
        }
        return nil
    }

    /// Whether `string`'s UTF-8 is exactly `bytes`: one `memcmp` over a native string's storage
    /// (iterating `utf8` went through the unspecialised collection witness, a call per byte).
    static func same(_ string: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard string.utf8.count == bytes.count else { return false }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        return string.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, base, bytes.count) == 0 }
            ?? string.utf8.elementsEqual(bytes)
    }
}
