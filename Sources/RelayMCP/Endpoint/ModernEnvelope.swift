import RelayHTTP
import RelayJSON

/// The 2026-07-28 request envelope: `params._meta` carrying the protocol version and the client's
/// capabilities (`basic/index.mdx`, "Per-request protocol fields"), and the routing headers that
/// must mirror the body (`basic/transports/streamable-http.mdx`, "Server Validation"). Checked in
/// the order of the official Python SDK 2.3 (`mcp/shared/inbound.py`), so a request fails with
/// the same code on either server: a repeated routing header, then `_meta` (-32602), then headers
/// against the body (-32020), then the version itself (-32022).
struct ModernEnvelope: Sendable, Equatable {
    static let protocolVersionKey = "io.modelcontextprotocol/protocolVersion"
    static let clientCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities"
    static let clientInfoKey = "io.modelcontextprotocol/clientInfo"

    /// The params member `Mcp-Name` mirrors, per method.
    static let namedParameter: [String: String] = [
        "tools/call": "name", "prompts/get": "name", "resources/read": "uri",
    ]

    /// The revision the request is made in (always a modern one).
    let version: ProtocolVersion
    /// What the client can do for this request (nothing the relay needs today: it never asks).
    let clientCapabilities: JSONObject
    /// Who the client says it is, if it said (display and logs only, never decisions).
    let clientInfo: JSONObject?

    /// Whether `params` name the modern era: the reserved version key exists only in 2026-era `_meta`
    /// (a bare `_meta` proves nothing; 2025 requests carry `progressToken` there).
    static func isNamed(by params: JSONObject?) -> Bool {
        guard let params, case .object(let meta)? = params["_meta"] else { return false }
        return meta[protocolVersionKey] != nil
    }

    /// The envelope of `call` sent with `headers`, or the error that refuses it (always HTTP 400).
    static func check(_ call: JSONRPCRequest, headers: HTTPHeaders) -> Result<ModernEnvelope, MCPError> {
        let versionHeader = headers.values("mcp-protocol-version")
        let methodHeader = headers.values("mcp-method")
        let nameHeader = headers.values("mcp-name")
        if let repeated = repeatedHeader(versionHeader, methodHeader, nameHeader) {
            return .failure(.headerMismatch(repeated))
        }
        let meta: Meta
        switch Meta.read(call) {
        case .failure(let error): return .failure(error)
        case .success(let read): meta = read
        }
        if let mismatch = headerMismatch(
            call, meta.requested, versionHeader.first, methodHeader.first, nameHeader.first)
        {
            return .failure(.headerMismatch(mismatch))
        }
        return meta.envelope()
    }

    /// The envelope of `call` on a transport without a header layer (stdio: "all request metadata is
    /// carried inline in the JSON-RPC message body", `basic/transports/stdio.mdx`): the same `_meta`
    /// checks and version check, in the same order, without the routing headers.
    static func check(_ call: JSONRPCRequest) -> Result<ModernEnvelope, MCPError> {
        Meta.read(call).flatMap { $0.envelope() }
    }

    /// What `params._meta` says, before the version is checked.
    private struct Meta {
        var requested: String?
        var capabilities: JSONObject
        var clientInfo: JSONObject?

        static func read(_ call: JSONRPCRequest) -> Result<Meta, MCPError> {
            guard case .object(let meta)? = call.params?["_meta"] else {
                return .failure(
                    .invalidParams(
                        "params._meta must be an object with \(protocolVersionKey) and \(clientCapabilitiesKey)."))
            }
            let missing = [protocolVersionKey, clientCapabilitiesKey].filter { meta[$0] == nil }
            guard missing.isEmpty else {
                return .failure(.invalidParams("params._meta lacks \(missing.joined(separator: " and "))."))
            }
            guard case .object(let capabilities)? = meta[clientCapabilitiesKey] else {
                return .failure(.invalidParams("params._meta.\(clientCapabilitiesKey) must be an object."))
            }
            var clientInfo: JSONObject?
            switch meta[clientInfoKey] {
            case nil: break
            case .object(let info)?: clientInfo = info
            default: return .failure(.invalidParams("params._meta.\(clientInfoKey) must be an object."))
            }
            return .success(
                Meta(
                    requested: meta[protocolVersionKey]?.stringValue, capabilities: capabilities,
                    clientInfo: clientInfo))
        }

        func envelope() -> Result<ModernEnvelope, MCPError> {
            guard let requested else {
                return .failure(.invalidParams("params._meta.\(protocolVersionKey) must be a string."))
            }
            guard let version = ProtocolVersion(rawValue: requested), version.isModern else {
                return .failure(.unsupportedProtocolVersion(requested))
            }
            return .success(ModernEnvelope(version: version, clientCapabilities: capabilities, clientInfo: clientInfo))
        }
    }

    /// For a 2026 body served in a 2025 revision (its header names one): what disagrees between the
    /// routing headers the request carries and its body, or nil. Absent headers are not required there.
    static func mirrorMismatch(_ call: JSONRPCRequest, headers: HTTPHeaders) -> String? {
        let methodHeader = headers.values("mcp-method")
        let nameHeader = headers.values("mcp-name")
        if let repeated = repeatedHeader([], methodHeader, nameHeader) { return repeated }
        if let method = methodHeader.first, !HeaderValue.isPlain(method) || method != call.method {
            return "the Mcp-Method header does not match the method \"\(call.method)\"."
        }
        guard let name = nameHeader.first else { return nil }
        let member = namedParameter[call.method] ?? "name"
        guard HeaderValue.isPlain(name), let decoded = HeaderValue.decode(name),
            .string(decoded) == call.params?[member]
        else { return "the Mcp-Name header does not match params.\(member)." }
        return nil
    }

    /// A routing header given more than once: a first-copy reader and a last-copy reader would route
    /// the request differently.
    private static func repeatedHeader(_ version: [String], _ method: [String], _ name: [String]) -> String? {
        for (header, values) in [("MCP-Protocol-Version", version), ("Mcp-Method", method), ("Mcp-Name", name)]
        where values.count > 1 {
            return "the \(header) header appears more than once."
        }
        return nil
    }

    /// What disagrees between the routing headers and the body, or nil when they agree.
    private static func headerMismatch(
        _ call: JSONRPCRequest, _ requested: String?, _ version: String?, _ method: String?, _ name: String?
    ) -> String? {
        guard let version else { return "the MCP-Protocol-Version header is missing." }
        guard version == requested else {
            return "the MCP-Protocol-Version header \"\(version)\" does not match params._meta.\(protocolVersionKey)."
        }
        guard let method else { return "the Mcp-Method header is missing." }
        guard HeaderValue.isPlain(method), method == call.method else {
            return "the Mcp-Method header does not match the method \"\(call.method)\"."
        }
        // The name header is checked when the body names something; a request without the member is
        // malformed and its method says so (-32602).
        guard let member = namedParameter[call.method], let value = call.params?[member], !value.isNull else {
            return nil
        }
        guard let name else { return "the Mcp-Name header is missing (\(call.method) needs it)." }
        guard HeaderValue.isPlain(name), let decoded = HeaderValue.decode(name), .string(decoded) == value else {
            return "the Mcp-Name header does not match params.\(member)."
        }
        return nil
    }
}
