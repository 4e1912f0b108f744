import RelayJSON

/// A response body as the emulator writes it: JSON values, with records spliced in as the bytes their zone keeps
/// for them (`ZoneState.renderedRecord`). A long history's listing reads the same 200 unchanged records on every
/// call; building each one's tree again (an object per record, field and timestamp), writing and freeing it was
/// most of the emulator's own time, and that time adds to the latency it plays.
///
/// `bytes` is exactly what the same value as one `JSONValue` tree writes (`json`): members in the order given,
/// compact, the same string escapes.
indirect enum WireValue: Sendable {
    case json(JSONValue)
    /// One value's compact encoding, written as it is.
    case encoded([UInt8])
    case array([WireValue])
    /// Members in order; the names are distinct.
    case object([(String, WireValue)])

    /// The compact encoding.
    var bytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256 + encodedCount)
        write(into: &output)
        return output
    }

    /// The same value as a tree (the control API reads query pages this way).
    var json: JSONValue {
        switch self {
        case .json(let value): value
        case .encoded(let bytes): (try? JSONValue(parsing: bytes)) ?? .null
        case .array(let elements): .array(elements.map(\.json))
        case .object(let members): .object(JSONObject(members.map { ($0.0, $0.1.json) }))
        }
    }

    private func write(into output: inout [UInt8]) {
        switch self {
        case .json(let value): value.write(into: &output)
        case .encoded(let bytes): output.append(contentsOf: bytes)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, (name, value)) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.writeString(name, into: &output)
                output.append(UInt8(ascii: ":"))
                value.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// The bytes of the encoded parts (room reserved at once for a page of records).
    private var encodedCount: Int {
        switch self {
        case .json: 0
        case .encoded(let bytes): bytes.count
        case .array(let elements): elements.reduce(0) { $0 + $1.encodedCount }
        case .object(let members): members.reduce(0) { $0 + $1.1.encodedCount }
        }
    }
}
