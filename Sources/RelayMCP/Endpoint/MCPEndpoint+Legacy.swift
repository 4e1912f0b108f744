import RelayHTTP
import RelayJSON

extension MCPEndpoint {
    /// Answers a request of a 2025 revision (everything but `tools/call` on the spot).
    func answerLegacy(_ call: JSONRPCRequest, version: ProtocolVersion) -> Answer {
        if let answer = answerFeature(call, version: version) { return answer }
        switch call.method {
        case "ping":
            return .ready(JSONRPCEncoding.result(id: call.id, .object([:])), .ok)
        case "initialize":
            guard let requested = call.params?["protocolVersion"]?.stringValue else {
                let error = MCPError.invalidParams("initialize needs params.protocolVersion (a string).")
                return .ready(JSONRPCEncoding.error(id: call.id, error), .ok)
            }
            // Echo a version initialize can negotiate, otherwise offer the latest of them (2026-07-28
            // included: it has no handshake); the client decides whether it can use it.
            let offered = ProtocolVersion(rawValue: requested).flatMap { $0.isModern ? nil : $0 }
            return .ready(initializeResult(for: offered ?? .latestLegacy).bytes(id: call.id), .ok)
        case "server/discover":
            // A probe without the 2026 `_meta`: not a modern request, so not served as one. A 400 with an
            // ordinary JSON-RPC error (not -32022) sends a dual-era client to initialize.
            let error = MCPError(
                code: MCPError.Code.methodNotFound,
                message: "Method not found: server/discover needs the 2026-07-28 params._meta; "
                    + "or start a 2025 session with initialize.",
                data: ["supported": .array(ProtocolVersion.supportedStrings.map { .string($0) })]
            )
            return .ready(JSONRPCEncoding.error(id: call.id, error), .badRequest)
        default:
            // Inside a 2025 session an unknown method is an ordinary JSON-RPC error in a 200 (see
            // `status(of:in:)`); some hosts call resources/list or prompts/list on every server.
            return failure(call.id, .methodNotFound(call.method), version)
        }
    }
}
