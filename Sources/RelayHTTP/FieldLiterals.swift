/// Field names and values longer than a small string (15 bytes, the most a `String` holds without
/// a heap allocation) that arrive on most messages: when the bytes are exactly one of them, the
/// parsers (`HeadParser`, the HTTP/2 session's field callback) take the literal instead of making
/// a heap string per message.
enum FieldLiterals {
    /// The literal of `literals` whose bytes are `bytes` (ASCII case folded when `foldingCase`:
    /// `literals` are then lower case), or nil.
    static func match(_ bytes: UnsafeRawBufferPointer, in literals: [String], foldingCase: Bool = false) -> String? {
        guard bytes.count > 15 else { return nil }
        for literal in literals where literal.utf8.count == bytes.count {
            let same =
                foldingCase
                ? zip(literal.utf8, bytes).allSatisfy { $0 == ByteClass.lowercased($1) }
                : literal.utf8.elementsEqual(bytes)
            if same { return literal }
        }
        return nil
    }
}
