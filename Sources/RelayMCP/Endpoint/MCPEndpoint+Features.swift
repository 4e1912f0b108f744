import RelayHTTP
import RelayJSON

/// The server features (tools, prompts and resources) as both eras and both transports see them. A new feature
/// is added here once: its capability in `capabilities`, its methods in `answerFeature`. `initialize`
/// (legacy) and `server/discover` (modern) both advertise `capabilities`, and both eras' dispatchers
/// (over HTTP and over stdio) ask `answerFeature` before their own era-only methods.
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

    /// The server capabilities, the same in every revision. `listChanged` is false: the tool and
    /// prompt lists are fixed for the life of the process (and a 2026 server sends change
    /// notifications only on `subscriptions/listen` streams, which this server acknowledges with
    /// nothing to send). `prompts` and `resources` are declared only when there are some; `extensions`
    /// (SEP-2133: `capabilities.extensions`, keyed by extension id) only when there are any. MCP Apps asks
    /// for `extensions["io.modelcontextprotocol/ui"]` in `initialize` and `server/discover` alike
    /// (ext-apps `specification/2026-01-26/apps.mdx`).
    static func capabilities(
        _ registry: ToolRegistry<Principal>, prompts: PromptRegistry, resources: ResourceRegistry,
        extensions: JSONObject
    ) -> JSONObject {
        var capabilities: JSONObject = ["tools": ["listChanged": false]]
        if !prompts.isEmpty { capabilities["prompts"] = ["listChanged": false] }
        if !resources.isEmpty { capabilities["resources"] = ["subscribe": false, "listChanged": false] }
        if extensions.count > 0 { capabilities["extensions"] = .object(extensions) }
        return capabilities
    }

    /// Answers the methods both eras share, or nil when `call` is not one of them.
    func answerFeature(_ call: JSONRPCRequest, version: ProtocolVersion) -> Answer? {
        switch call.method {
        case "tools/call":
            return .toolCall(call)
        case "tools/list":
            let cursor = call.params?["cursor"]
            if let cursor, cursor.stringValue == nil, !cursor.isNull {
                return failure(call.id, .invalidParams("The cursor must be a string."), version)
            }
            guard let page = registry.page(cursor: cursor?.stringValue, version: version) else {
                return failure(call.id, .invalidParams("Invalid cursor."), version)
            }
            return .ready(page.bytes(id: call.id), .ok)
        case "prompts/list" where !prompts.isEmpty:
            let cursor = call.params?["cursor"]
            if let cursor, cursor.stringValue == nil, !cursor.isNull {
                return failure(call.id, .invalidParams("The cursor must be a string."), version)
            }
            guard let page = prompts.page(cursor: cursor?.stringValue, version: version) else {
                return failure(call.id, .invalidParams("Invalid cursor."), version)
            }
            return .ready(page.bytes(id: call.id), .ok)
        case "prompts/get" where !prompts.isEmpty:
            switch prompts.get(call.params) {
            case .failure(let error):
                return failure(call.id, error, version)
            case .success(let result):
                let json = envelope.finish(result.json, version: version, cacheable: false)
                return .ready(JSONRPCEncoding.result(id: call.id, json), .ok)
            }
        case "resources/list" where !resources.isEmpty:
            switch resources.list(cursor: call.params?["cursor"], version: version) {
            case .failure(let error): return failure(call.id, error, version)
            case .success(let encoded): return .ready(encoded.bytes(id: call.id), .ok)
            }
        case "resources/read" where !resources.isEmpty:
            switch resources.read(call.params, version: version) {
            case .failure(let error): return failure(call.id, error, version)
            case .success(let encoded): return .ready(encoded.bytes(id: call.id), .ok)
            }
        case "resources/templates/list" where !resources.isEmpty:
            // No templates: every resource has a fixed URI.
            let json = envelope.finish(["resourceTemplates": []], version: version, cacheable: true)
            return .ready(JSONRPCEncoding.result(id: call.id, json), .ok)
        default:
            return nil
        }
    }

    /// A JSON-RPC error answer with the HTTP status `version`'s era gives it.
    func failure(_ id: JSONRPCID, _ error: MCPError, _ version: ProtocolVersion) -> Answer {
        .ready(JSONRPCEncoding.error(id: id, error), Self.status(of: error, in: version.era))
    }

    /// In a 2025 session a method-level error rides in a 200: clients such as the 1.x Python SDK tear
    /// the whole connection down on an HTTP error status. The 2026 transport gives each error its
    /// status (`-32601` → 404, protocol errors → 400, as the spec and the Python SDK 2.3's
    /// `ERROR_CODE_HTTP_STATUS` do); anything else, a tool's own failure included, is a 200.
    static func status(of error: MCPError, in era: ProtocolVersion.Era) -> HTTPStatus {
        guard era == .modern else { return .ok }
        switch error.code {
        case MCPError.Code.methodNotFound:
            return .notFound
        case MCPError.Code.parseError, MCPError.Code.invalidRequest, MCPError.Code.invalidParams,
            MCPError.Code.headerMismatch, MCPError.Code.missingRequiredClientCapability,
            MCPError.Code.unsupportedProtocolVersion:
            return .badRequest
        default:
            return .ok
        }
    }
}
