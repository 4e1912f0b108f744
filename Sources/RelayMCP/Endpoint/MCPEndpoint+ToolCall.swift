import RelayHTTP
import RelayJSON

extension MCPEndpoint {
    /// How a `tools/call` ended, in neither era's terms: the result, a JSON-RPC error, the
    /// session-ended signal that becomes a 401, or a refusal for want of scopes that becomes a 403
    /// (`needed`: the tool's required scopes). `encode` frames the first two for a revision.
    enum ToolCallOutcome: Sendable {
        case result(ToolResult)
        case error(MCPError)
        case sessionEnded
        case insufficientScope(needed: [String])
    }

    /// The one path every `tools/call` takes, whatever the protocol revision or framing: looks the
    /// tool up, checks the principal's scopes against the tool's, validates the arguments against
    /// its input schema, runs it, and turns whatever it throws into a result (or the 401 signal).
    /// A call refused before it ran (no valid tool, no scope, invalid arguments) still counts
    /// against the connection's budget (`MCPAuthenticator.admitRequest`); one that runs counts in
    /// `admitToolCall`. Either way each `tools/call` counts once.
    func callTool(_ call: JSONRPCRequest, version: ProtocolVersion, principal: Principal) async -> ToolCallOutcome {
        var admitted = false
        defer { if !admitted { _ = authenticator.admitRequest(principal) } }
        guard let name = call.params?["name"]?.stringValue else {
            return .error(.invalidParams("tools/call needs params.name (a string)."))
        }
        guard let entry = registry.entry(named: name) else {
            return .error(.invalidParams("Unknown tool: \(name)."))
        }
        let clock = ContinuousClock()
        let started = clock.now
        // Before anything about the arguments is looked at: a caller without the scope learns only
        // that it needs it. `ToolRegistry` admits no tool without a declared scope, and an empty
        // list here would still refuse rather than allow.
        if entry.requiredScopes.isEmpty || !principal.missingScopes(entry.requiredScopes).isEmpty {
            report(name, started, clock, Self.insufficientScopeOutcome)
            return .insufficientScope(needed: entry.requiredScopes)
        }
        let arguments: JSONObject
        switch call.params?["arguments"] {
        case nil, .null?: arguments = [:]
        case .object(let object)?: arguments = object
        default:
            return .error(.invalidParams("params.arguments must be an object."))
        }
        let result: ToolResult
        if let violation = entry.input.validate(.object(arguments)) {
            result = ToolResult(error: violation.toolError)
        } else if let refusal = authenticator.admitToolCall(principal) {
            admitted = true
            result = ToolResult(error: refusal)
        } else {
            admitted = true
            let context = ToolContext(principal: principal, protocolVersion: version, requestID: call.id)
            do {
                result = checked(try await entry.tool.call(arguments, context: context), entry, name)
                if !result.isError { authenticator.toolCallSucceeded(principal, tool: name, result: result) }
            } catch let error as ToolError where error.isSessionEnded {
                report(name, started, clock, ToolError.Code.sessionEnded)
                return .sessionEnded
            } catch let error as ToolError {
                result = ToolResult(error: error)
            } catch let error as MCPError {
                report(name, started, clock, "JSONRPC_\(error.code)")
                return .error(error)
            } catch {
                configuration.onError?(name, error)
                result = ToolResult(error: Self.unexpected)
            }
        }
        report(name, started, clock, outcome(of: result))
        return .result(result)
    }

    /// The response body and status of a finished call for a client speaking `version`, or nil for
    /// the signals answered at the HTTP level (session ended, insufficient scope).
    func encode(_ outcome: ToolCallOutcome, id: JSONRPCID, version: ProtocolVersion) -> ([UInt8], HTTPStatus)? {
        switch outcome {
        case .result(let result) where result.meta != nil && version.isModern:
            // The stamp goes into the result's own `_meta` (one `_meta` member, never two).
            guard case .object(var object) = result.json(for: version) else { return nil }
            let meta = result.meta ?? [:]
            object["_meta"] = nil
            return (
                JSONRPCEncoding.result(id: id, envelope.finish(object, version: version, cacheable: false, meta: meta)),
                .ok
            )
        case .result(let result):
            return (
                JSONRPCEncoding.result(id: id, result.json(for: version), members: envelope.trailer(for: version)), .ok
            )
        case .error(let error):
            return (JSONRPCEncoding.error(id: id, error), Self.status(of: error, in: version.era))
        case .sessionEnded, .insufficientScope:
            return nil
        }
    }

    /// Runs a single `tools/call` and answers it: the result, its error, the authenticator's 401,
    /// or the 403 step-up challenge.
    func respondToToolCall(
        _ call: JSONRPCRequest, version: ProtocolVersion, principal: Principal, request: Request,
        format: MCPResponses.Format
    ) async -> Response {
        let outcome = await callTool(call, version: version, principal: principal)
        if case .insufficientScope(let needed) = outcome {
            return scopeRefusal(principal: principal, needed: needed, id: call.id, batch: false)
        }
        guard let (bytes, status) = encode(outcome, id: call.id, version: version) else {
            return MCPResponses.withCORS(await authenticator.sessionEnded(request, principal: principal))
        }
        return MCPResponses.payload(bytes, status: status, format: status == .ok ? format : .json)
    }

    /// HTTP 403 with the authenticator's `insufficient_scope` challenge and a JSON-RPC error that
    /// says which scopes are missing (RFC 6750 §3.1; MCP 2025-11-25 "Runtime Insufficient Scope
    /// Errors"), in every revision. `needed`: every scope the request needs; the authenticator's
    /// challenge decides what the client is told to ask for.
    func scopeRefusal(principal: Principal, needed: [String], id: JSONRPCID?, batch: Bool) -> Response {
        let missing = principal.missingScopes(needed)
        let list = (missing.isEmpty ? needed : missing).joined(separator: " ")
        let what = batch ? "A tool call in this batch" : "This tool"
        let error = MCPError(
            code: MCPError.Code.serverError,
            message: "Forbidden: \(what) needs the scope \(list), which this connection was not granted."
                + (batch ? " Nothing in the batch was run." : "")
                + " Connect again and allow it to use this tool.",
            data: [
                "error": "insufficient_scope", "requiredScopes": .array(needed.map { .string($0) }),
                "missingScopes": .array(missing.map { .string($0) }),
            ])
        var response = MCPResponses.error(.forbidden, error, id: id)
        response.headers.add(
            "WWW-Authenticate", authenticator.insufficientScopeChallenge(principal: principal, needed: needed))
        return response
    }

    /// The outcome label of a call refused for want of scope (metrics, logs).
    static var insufficientScopeOutcome: String { "INSUFFICIENT_SCOPE" }

    /// The scopes a batch's tool calls need when the principal lacks one of them (every tool call's
    /// scopes, held ones included, in first-seen order), or nil when the batch may run. Unknown
    /// tools and malformed calls need nothing here: `callTool` answers them with their JSON-RPC error.
    func scopesNeeded(byBatch calls: [JSONRPCRequest], principal: Principal) -> [String]? {
        var needed: [String] = []
        var refused = false
        for call in calls {
            guard let name = call.params?["name"]?.stringValue, let required = registry.requiredScopes(of: name)
            else { continue }
            if required.isEmpty || !principal.missingScopes(required).isEmpty { refused = true }
            for scope in required where !needed.contains(scope) { needed.append(scope) }
        }
        return refused ? needed : nil
    }

    private static var unexpected: ToolError {
        ToolError(code: ToolError.Code.internalError, message: "The tool failed unexpectedly. Try again later.")
    }

    /// With `validatesOutput`, a successful result must match the tool's `outputSchema`.
    private func checked(_ result: ToolResult, _ entry: ToolRegistry<Principal>.Entry, _ name: String) -> ToolResult {
        guard configuration.validatesOutput, !result.isError, let output = entry.output else { return result }
        let violation: SchemaViolation? =
            if let structured = result.structuredContent {
                output.validate(.object(structured))
            } else {
                SchemaViolation(path: [], problem: "are missing structuredContent")
            }
        guard let violation else { return result }
        configuration.onError?(name, MCPError.internalError("Output does not match outputSchema: \(violation)"))
        return ToolResult(error: Self.unexpected)
    }

    private func outcome(of result: ToolResult) -> String {
        guard result.isError else { return "ok" }
        return result.structuredContent?["error"]?["code"]?.stringValue ?? "ERROR"
    }

    private func report(_ name: String, _ started: ContinuousClock.Instant, _ clock: ContinuousClock, _ outcome: String)
    {
        guard let onToolCall = configuration.onToolCall else { return }
        onToolCall(ToolCallRecord(tool: name, duration: clock.now - started, outcome: outcome))
    }
}
