import RelayJSON

/// A JSON-RPC request id. MCP allows strings and integers, never null.
package enum JSONRPCID: Sendable, Hashable, CustomStringConvertible {
    /// A string id.
    case string(String)
    /// An integer id.
    case int(Int)

    /// The id from a JSON value, or nil when it is not a string or an integer.
    package init?(_ value: JSONValue) {
        switch value {
        case .string(let string): self = .string(string)
        case .int(let int): self = .int(int)
        case .double(let double) where double.rounded() == double && abs(double) < 9.0e15: self = .int(Int(double))
        default: return nil
        }
    }

    /// The id as JSON.
    package var json: JSONValue {
        switch self {
        case .string(let string): .string(string)
        case .int(let int): .int(int)
        }
    }

    /// Appends the id's JSON encoding.
    package func write(into output: inout [UInt8]) {
        switch self {
        case .string(let string): JSONValue.writeString(string, into: &output)
        case .int(let int): output.append(contentsOf: String(int).utf8)
        }
    }

    package var description: String {
        switch self {
        case .string(let string): "\"\(string)\""
        case .int(let int): String(int)
        }
    }
}
