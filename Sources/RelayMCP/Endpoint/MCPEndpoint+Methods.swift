import RelayHTTP
import RelayJSON

extension MCPEndpoint {
    /// The answer to one request: ready now, or a tool call that has to run.
    enum Answer: Sendable {
        /// An encoded JSON-RPC response and the HTTP status it goes with when sent alone.
        case ready([UInt8], HTTPStatus)
        case toolCall(JSONRPCRequest)

        var bytes: [UInt8]? {
            if case .ready(let bytes, _) = self { return bytes }
            return nil
        }
    }

    /// Answers every method but `tools/call` on the spot.
    func answer(_ call: JSONRPCRequest, version: ProtocolVersion) -> Answer {
        switch call.method {
        case "tools/call":
            return .toolCall(call)
        case "tools/list":
            let cursor = call.params?["cursor"]
            if let cursor, cursor.stringValue == nil, !cursor.isNull {
                return .ready(JSONRPCEncoding.error(id: call.id, .invalidParams("The cursor must be a string.")), .ok)
            }
            guard let page = registry.page(cursor: cursor?.stringValue, version: version) else {
                return .ready(JSONRPCEncoding.error(id: call.id, .invalidParams("Invalid cursor.")), .ok)
            }
            return .ready(page.bytes(id: call.id), .ok)
        case "ping":
            return .ready(JSONRPCEncoding.result(id: call.id, .object([:])), .ok)
        case "initialize":
            guard let requested = call.params?["protocolVersion"]?.stringValue else {
                let error = MCPError.invalidParams("initialize needs params.protocolVersion (a string).")
                return .ready(JSONRPCEncoding.error(id: call.id, error), .ok)
            }
            // Echo a supported version, otherwise offer the latest; the client decides whether it can use it.
            let negotiated = ProtocolVersion(rawValue: requested) ?? .latest
            return .ready(initializeResult(for: negotiated).bytes(id: call.id), .ok)
        case "server/discover":
            // A 2026-07-28 client probing. An immediate 400 with an ordinary JSON-RPC error (not -32022)
            // makes it fall back to initialize.
            let error = MCPError(
                code: MCPError.Code.methodNotFound,
                message: "Method not found: server/discover. This server speaks "
                    + ProtocolVersion.supportedStrings.joined(separator: ", ") + "; use initialize.",
                data: ["supported": .array(ProtocolVersion.supportedStrings.map { .string($0) })]
            )
            return .ready(JSONRPCEncoding.error(id: call.id, error), .badRequest)
        default:
            // Inside a 2025 session an unknown method is an ordinary JSON-RPC error in a 200: clients
            // such as the 1.x Python SDK tear the whole connection down on an HTTP error status, and
            // some hosts call resources/list or prompts/list on every server.
            return .ready(JSONRPCEncoding.error(id: call.id, .methodNotFound(call.method)), .ok)
        }
    }
}
