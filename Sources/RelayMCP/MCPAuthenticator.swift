import RelayHTTP

/// What an authenticator decided about one request.
package enum MCPAuthentication<Principal: MCPPrincipal>: Sendable {
    /// Serve the request for `principal`.
    case authorized(Principal)
    /// Answer with this response instead (a 401 or 403 with `WWW-Authenticate`). The endpoint adds
    /// its CORS headers to it.
    case rejected(Response)
}

/// The seam where OAuth plugs into the MCP endpoint. Every request to the endpoint except an
/// `OPTIONS` preflight is authenticated, whatever its method, before anything else about it is
/// looked at (a request for an unknown Host or from a refused Origin is turned away first).
package protocol MCPAuthenticator<Principal>: Sendable {
    /// What a successful authentication yields; tools receive it in `ToolContext`. It carries the
    /// scopes the endpoint checks before every tool call.
    associatedtype Principal: MCPPrincipal

    /// Decides without suspending when it can (a cached token, a missing header), or returns nil to
    /// have `authenticate` called. Answering here lets cheap requests skip creating a task.
    func authenticateImmediately(_ request: Request) -> MCPAuthentication<Principal>?

    /// Decides for `request` (bearer token lookup).
    func authenticate(_ request: Request) async -> MCPAuthentication<Principal>

    /// The response for a request whose tool found the person's upstream session gone
    /// (`ToolError.sessionEnded()`): typically forget the grant, then a 401 with
    /// `WWW-Authenticate: Bearer error="invalid_token", …` so the client reconnects.
    func sessionEnded(_ request: Request, principal: Principal) async -> Response

    /// Whether `principal` may make one more tool call now: nil lets it run; a `ToolError` (a rate
    /// limit with retry advice, say) becomes the call's result instead, and the tool does not run.
    /// Asked once for every `tools/call` whose arguments are valid, batched or not, so each call in a
    /// batch counts exactly as if it had come in its own request.
    func admitToolCall(_ principal: Principal) -> ToolError?

    /// Whether `principal` may make one more JSON-RPC request other than an admitted `tools/call`
    /// (`ping`, `initialize`, `tools/list`, a `tools/call` refused before it ran): nil lets it be
    /// answered; a number of seconds answers it 429 with that `Retry-After`. Asked once per request,
    /// batched or not, against the same budget as `admitToolCall`, so no request is free: parsing and
    /// answering even a `ping` costs the relay something (issue 38).
    func admitRequest(_ principal: Principal) -> Int?

    /// The `WWW-Authenticate` value for a `tools/call` that needs scopes `principal` lacks: the
    /// endpoint answers it with HTTP 403 and a JSON-RPC error. `needed` lists every scope the
    /// refused request needs (for a batch: every tool call in it), held ones included; the
    /// challenge's `scope` should name what the client must ask for so that the request succeeds
    /// without losing what it already has (MCP 2025-11-25, "Scope Challenge Handling"):
    /// `Bearer error="insufficient_scope", scope="…", resource_metadata="…"`.
    func insufficientScopeChallenge(principal: Principal, needed: [String]) -> String

    /// Called once for every `tools/call` whose tool ran and succeeded (its result is not `isError`),
    /// right before the result is sent, with the tool's name and result: where the relay counts
    /// what each connection did (issue 44). It must not block or fail the call: anything it writes
    /// goes in a task of its own.
    func toolCallSucceeded(_ principal: Principal, tool: String, result: ToolResult)
}

extension MCPAuthenticator {
    /// By default every decision goes through `authenticate`.
    package func authenticateImmediately(_ request: Request) -> MCPAuthentication<Principal>? { nil }

    /// By default every call is admitted.
    package func admitToolCall(_ principal: Principal) -> ToolError? { nil }

    /// By default every request is admitted.
    package func admitRequest(_ principal: Principal) -> Int? { nil }

    /// By default nothing is noted.
    package func toolCallSucceeded(_ principal: Principal, tool: String, result: ToolResult) {}
}
