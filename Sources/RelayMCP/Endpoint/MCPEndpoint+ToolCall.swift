import RelayJSON

extension MCPEndpoint {
    /// How a `tools/call` ended: a JSON-RPC response, or the session-ended signal that becomes a 401.
    enum ToolCallOutcome: Sendable {
        case reply([UInt8])
        case sessionEnded
    }

    /// Looks the tool up, validates the arguments against its input schema, runs it, and turns
    /// whatever it throws into a result (or the 401 signal).
    func callTool(_ call: JSONRPCRequest, version: ProtocolVersion, principal: Principal) async -> ToolCallOutcome {
        guard let name = call.params?["name"]?.stringValue else {
            return .reply(
                JSONRPCEncoding.error(id: call.id, .invalidParams("tools/call needs params.name (a string).")))
        }
        guard let entry = registry.entry(named: name) else {
            return .reply(JSONRPCEncoding.error(id: call.id, .invalidParams("Unknown tool: \(name).")))
        }
        let arguments: JSONObject
        switch call.params?["arguments"] {
        case nil, .null?: arguments = [:]
        case .object(let object)?: arguments = object
        default:
            return .reply(JSONRPCEncoding.error(id: call.id, .invalidParams("params.arguments must be an object.")))
        }
        let clock = ContinuousClock()
        let started = clock.now
        let result: ToolResult
        if let violation = entry.input.validate(.object(arguments)) {
            result = ToolResult(error: violation.toolError)
        } else if let refusal = authenticator.admitToolCall(principal) {
            result = ToolResult(error: refusal)
        } else {
            let context = ToolContext(principal: principal, protocolVersion: version, requestID: call.id)
            do {
                result = checked(try await entry.tool.call(arguments, context: context), entry, name)
            } catch let error as ToolError where error.isSessionEnded {
                report(name, started, clock, ToolError.Code.sessionEnded)
                return .sessionEnded
            } catch let error as ToolError {
                result = ToolResult(error: error)
            } catch let error as MCPError {
                report(name, started, clock, "JSONRPC_\(error.code)")
                return .reply(JSONRPCEncoding.error(id: call.id, error))
            } catch {
                configuration.onError?(name, error)
                result = ToolResult(error: Self.unexpected)
            }
        }
        report(name, started, clock, outcome(of: result))
        return .reply(JSONRPCEncoding.result(id: call.id, result.json(for: version)))
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
