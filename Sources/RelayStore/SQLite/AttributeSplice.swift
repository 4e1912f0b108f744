import RelayJSON

/// Stored attributes with some top-level members set, made from the stored JSON text itself: each
/// set member's value is replaced where it lies (a new member goes at the end) and every other
/// byte is copied as it was. Reading the row into a `JSONObject` and encoding it again cost the
/// writer a parse, a string per member and a re-encode on every rotated token's save.
///
/// The result is what `Write.apply` would store, byte for byte when the stored text is this
/// relay's own compact encoding: member order kept, a new member last. Other stored text (spaces,
/// `1e2`, escaped letters) is kept as it is, which reads back as the same values.
enum AttributeSplice {
    /// The new attributes' JSON; nil when the general path must decide: the stored text is not a
    /// JSON object (corrupt), or it repeats the name of a member being set (the parsed object keeps
    /// one of them, which a splice cannot tell by itself).
    static func spliced(_ stored: UnsafeBufferPointer<UInt8>, setting attributes: JSONObject) -> [UInt8]? {
        let names = attributes.map(\.key)
        var found = [Range<Int>?](repeating: nil, count: names.count)
        var repeated = false
        var members = 0
        var end = 0
        let isObject = try? JSONReader.read(stored) { (reader) throws(JSONParseError) -> Bool in
            let object = try reader.readObject { reader, key throws(JSONParseError) in
                members += 1
                let start = reader.offset
                try reader.skipValue()
                guard let index = names.firstIndex(where: { key == $0 }) else { return }
                if found[index] != nil { repeated = true }
                found[index] = start..<reader.offset
            }
            end = reader.offset  // just past the object's closing brace
            return object
        }
        guard isObject == true, !repeated else { return nil }
        let close = end - 1
        var output: [UInt8] = []
        output.reserveCapacity(stored.count + attributes.reduce(16) { $0 + $1.key.utf8.count + estimate($1.value) })
        // Values replaced in the order they lie in the text.
        var copied = 0
        let replaced = zip(found, attributes).compactMap { range, member in range.map { ($0, member.value) } }
        for (range, value) in replaced.sorted(by: { $0.0.lowerBound < $1.0.lowerBound }) {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: stored[copied..<range.lowerBound]))
            value.write(into: &output)
            copied = range.upperBound
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: stored[copied..<close]))
        // New members at the end, as `JSONObject` appends them.
        for (member, range) in zip(attributes, found) where range == nil {
            if members > 0 { output.append(UInt8(ascii: ",")) }
            members += 1
            JSONValue.writeString(member.key, into: &output)
            output.append(UInt8(ascii: ":"))
            member.value.write(into: &output)
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: stored[close..<stored.count]))
        return output
    }

    /// Room for a value's encoding: a string's bytes and quotes (escapes are rare), else a guess.
    private static func estimate(_ value: JSONValue) -> Int {
        if case .string(let string) = value { return string.utf8.count + 8 }
        return 64
    }
}
