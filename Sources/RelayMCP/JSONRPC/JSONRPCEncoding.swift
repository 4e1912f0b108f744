import RelayJSON

/// Writes JSON-RPC responses straight into bytes, without building a `JSONValue` for the envelope.
package enum JSONRPCEncoding {
    private static let head = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
    private static let nullID = Array("null".utf8)
    private static let resultKey = Array(#","result":"#.utf8)
    private static let errorKey = Array(#","error":"#.utf8)

    /// `{"jsonrpc":"2.0","id":…,"result":…}`. `members`, when given, are encoded object members
    /// (`"a":1,"b":2`) appended inside the result object (which must be an object): how a modern
    /// result gets its `resultType` and `_meta` without copying the result value.
    package static func result(id: JSONRPCID, _ result: JSONValue, members: [UInt8]? = nil) -> [UInt8] {
        var output: [UInt8] = []
        // A tool result (its JSON twice: structured and as text) is 1–2 KB: room for it at once,
        // not growth at 128, 256, 512 and 1,024 bytes with a copy each.
        output.reserveCapacity(2048)
        output.append(contentsOf: head)
        id.write(into: &output)
        output.append(contentsOf: resultKey)
        result.write(into: &output)
        if let members, output.last == UInt8(ascii: "}") {
            output.removeLast()
            if output.last != UInt8(ascii: "{") { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: members)
            output.append(UInt8(ascii: "}"))
        }
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// `{"jsonrpc":"2.0","id":…|null,"error":{…}}`
    package static func error(id: JSONRPCID?, _ error: MCPError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        output.append(contentsOf: head)
        if let id { id.write(into: &output) } else { output.append(contentsOf: nullID) }
        output.append(contentsOf: errorKey)
        error.json.write(into: &output)
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// Joins encoded responses into a batch array.
    package static func batch(_ responses: [[UInt8]]) -> [UInt8] {
        var output: [UInt8] = [UInt8(ascii: "[")]
        for (index, response) in responses.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: response)
        }
        output.append(UInt8(ascii: "]"))
        return output
    }
}

/// A response whose result never changes (the tool list, `initialize`): encoded once, then only
/// the id is spliced in per request.
package struct PreencodedResult: Sendable {
    private let head: [UInt8]
    private let tail: [UInt8]

    /// Encodes `result` once.
    package init(_ result: JSONValue) {
        head = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
        var tail = Array(#","result":"#.utf8)
        result.write(into: &tail)
        tail.append(UInt8(ascii: "}"))
        self.tail = tail
    }

    /// The full response for `id`.
    package func bytes(id: JSONRPCID) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(head.count + tail.count + 24)
        output.append(contentsOf: head)
        id.write(into: &output)
        output.append(contentsOf: tail)
        return output
    }
}
