import RelayJSON

/// A JSON-RPC error: what RelayMCP answers when a message cannot be served. It renders as the
/// `error` member of a JSON-RPC response; the HTTP status that carries it is decided by the
/// endpoint (400 for transport-level refusals, 200 for method-level errors).
package struct MCPError: Error, Sendable, Equatable {
    /// The JSON-RPC error code.
    package var code: Int
    /// A one-line message safe to show the client (never secrets or to-do content).
    package var message: String
    /// Optional structured detail (`{"supported": [...], "requested": …}` for version errors).
    package var data: JSONValue?

    /// An error with any code.
    package init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// The `error` object of a JSON-RPC response.
    package var json: JSONValue {
        var object: JSONObject = ["code": .int(code), "message": .string(message)]
        if let data { object["data"] = data }
        return .object(object)
    }

    /// -32700: the body is not JSON.
    package static func parseError(_ message: String = "Parse error") -> MCPError {
        MCPError(code: Code.parseError, message: message)
    }

    /// -32600: JSON, but not a valid JSON-RPC message for this transport.
    package static func invalidRequest(_ message: String, data: JSONValue? = nil) -> MCPError {
        MCPError(code: Code.invalidRequest, message: message, data: data)
    }

    /// -32601: the method does not exist here.
    package static func methodNotFound(_ method: String) -> MCPError {
        MCPError(code: Code.methodNotFound, message: "Method not found: \(method)")
    }

    /// -32602: invalid parameters (also unknown tools and invalid cursors).
    package static func invalidParams(_ message: String) -> MCPError {
        MCPError(code: Code.invalidParams, message: message)
    }

    /// -32603: the server failed; the detail stays in the log.
    package static func internalError(_ message: String = "Internal error") -> MCPError {
        MCPError(code: Code.internalError, message: message)
    }

    /// -32020 (2026-07-28): a routing header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) is
    /// missing, repeated, or disagrees with the body.
    package static func headerMismatch(_ message: String) -> MCPError {
        MCPError(code: Code.headerMismatch, message: "Header mismatch: " + message)
    }

    /// -32022 (2026-07-28): the requested revision is not served; `data` names every served version
    /// (both eras, as the spec's own example does) and the one requested.
    package static func unsupportedProtocolVersion(_ requested: String) -> MCPError {
        MCPError(
            code: Code.unsupportedProtocolVersion,
            message: "Unsupported protocol version \"\(requested)\". Supported: "
                + ProtocolVersion.supportedStrings.joined(separator: ", ")
                + ". The 2025 revisions start with initialize; 2026-07-28 needs no handshake.",
            data: [
                "supported": .array(ProtocolVersion.supportedStrings.map { .string($0) }),
                "requested": .string(requested),
            ])
    }

    /// -32000 (implementation-defined server error): the connection's request budget is spent
    /// (`MCPAuthenticator.admitRequest`); `data.retryAfter` is the wait in seconds, as the 429's
    /// `Retry-After` header says.
    package static func rateLimited(retryAfter: Int) -> MCPError {
        MCPError(
            code: Code.serverError, message: "Too many requests for this connection. Retry in \(retryAfter) s.",
            data: ["retryAfter": .int(retryAfter)])
    }

    /// The JSON-RPC codes RelayMCP uses.
    package enum Code {
        /// Invalid JSON.
        package static let parseError = -32700
        /// Not a valid request object.
        package static let invalidRequest = -32600
        /// Unknown method.
        package static let methodNotFound = -32601
        /// Invalid method parameters.
        package static let invalidParams = -32602
        /// Internal JSON-RPC error.
        package static let internalError = -32603
        /// Implementation-defined server error, used for HTTP-level refusals (403, 405, 406, 415, 421).
        package static let serverError = -32000
        /// 2026-07-28 `HeaderMismatch`.
        package static let headerMismatch = -32020
        /// 2026-07-28 `MissingRequiredClientCapability` (never needed: no tool asks the client for anything).
        package static let missingRequiredClientCapability = -32021
        /// 2026-07-28 `UnsupportedProtocolVersion`.
        package static let unsupportedProtocolVersion = -32022
        /// "Resource not found" in the 2025 revisions (`server/resources.mdx`; 2026-07-28 uses -32602).
        package static let resourceNotFound = -32002
    }
}
