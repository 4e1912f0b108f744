/// Settings of an `MCPEndpoint`.
package struct MCPEndpointConfiguration: Sendable {
    /// The endpoint path; `path + "/"` is served too, without a redirect.
    package var path: String
    /// `serverInfo` of the `initialize` result; the `_meta` stamp of every 2026-07-28 result.
    package var serverInfo: MCPServerInfo
    /// Hint text for the model (`instructions` of `initialize` and `server/discover`); nil leaves it out.
    package var instructions: String?
    /// `Host` values accepted (the public host and its aliases), compared case-insensitively. An entry
    /// without a port accepts any port; `host:port` accepts only that port. Anything else gets 421,
    /// which keeps a loopback-bound server safe from DNS rebinding. nil turns the check off.
    package var allowedHosts: [String]?
    /// `Origin` values accepted (`scheme://host[:port]`). Requests without `Origin` (server-side
    /// clients) are always accepted; any other Origin gets 403.
    package var allowedOrigins: [String]
    /// Largest POST body accepted (413 beyond it).
    package var maxBodyBytes: Int
    /// Most messages in one 2025-03-26 batch; a longer batch is refused whole (400, -32600) before
    /// any of it runs. Clients do not batch in practice (batching was removed in 2025-06-18), so this
    /// only stops one POST from becoming thousands of upstream calls.
    package var maxBatchSize: Int
    /// Tools per `tools/list` page.
    package var pageSize: Int
    /// `ttlMs` and `cacheScope` of the 2026-07-28 `server/discover` and `tools/list` results. Public by
    /// default: the tool list is the same for every caller. A deployment that filtered the list per
    /// grant would have to make it private.
    package var cacheHint: MCPCacheHint
    /// Check successful results against the tool's `outputSchema` (a tool bug then becomes an
    /// `INTERNAL_ERROR` result and an `onError` report). Meant for tests and staging.
    package var validatesOutput: Bool
    /// Called after every `tools/call` with the tool name, duration and outcome code (never arguments
    /// or results, which may hold to-do content).
    package var onToolCall: (@Sendable (ToolCallRecord) -> Void)?
    /// Called with unexpected errors (a tool threw something that is not a `ToolError`). The argument
    /// is the tool name.
    package var onError: (@Sendable (String, any Error) -> Void)?

    /// A configuration; only the server identity is required.
    package init(
        serverInfo: MCPServerInfo,
        path: String = "/mcp",
        instructions: String? = nil,
        allowedHosts: [String]? = nil,
        allowedOrigins: [String] = [],
        maxBodyBytes: Int = 256 * 1024,
        maxBatchSize: Int = 20,
        pageSize: Int = 100,
        cacheHint: MCPCacheHint = .staticPerDeployment,
        validatesOutput: Bool = false,
        onToolCall: (@Sendable (ToolCallRecord) -> Void)? = nil,
        onError: (@Sendable (String, any Error) -> Void)? = nil
    ) {
        self.serverInfo = serverInfo
        self.path = path
        self.instructions = instructions
        self.allowedHosts = allowedHosts
        self.allowedOrigins = allowedOrigins
        self.maxBodyBytes = maxBodyBytes
        self.maxBatchSize = max(1, maxBatchSize)
        self.pageSize = pageSize
        self.cacheHint = cacheHint
        self.validatesOutput = validatesOutput
        self.onToolCall = onToolCall
        self.onError = onError
    }
}

/// The server's identity: `serverInfo` of `initialize`, the `_meta` stamp of 2026-07-28 results.
package struct MCPServerInfo: Sendable, Equatable {
    /// Programmatic name.
    package var name: String
    /// Display name (sent from 2025-06-18 on).
    package var title: String?
    /// Version string.
    package var version: String

    /// An identity.
    package init(name: String, title: String? = nil, version: String) {
        self.name = name
        self.title = title
        self.version = version
    }
}

/// What `onToolCall` reports: no arguments, no results.
package struct ToolCallRecord: Sendable, Equatable {
    /// The tool name.
    package var tool: String
    /// Wall time of the call, validation included.
    package var duration: Duration
    /// `ok`, or the error code (`INVALID_ARGUMENT`, `SESSION_ENDED`, `INTERNAL_ERROR`, a tool's own code).
    package var outcome: String
}
