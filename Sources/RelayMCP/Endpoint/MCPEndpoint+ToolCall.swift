import RelayHTTP
import RelayJSON

extension MCPEndpoint {
    /// How a `tools/call` ended, in neither era's terms: the result, a JSON-RPC error, or the
    /// session-ended signal that becomes a 401. `encode` frames it for a revision.
    enum ToolCallOutcome: Sendable {
        case result(ToolResult)
        case error(MCPError)
        case sessionEnded
    }

    /// Looks the tool up, validates the arguments against its input schema, runs it, and turns
    /// whatever it throws into a result (or the 401 signal). The one path for every revision.
    func callTool(_ call: JSONRPCRequest, version: ProtocolVersion, principal: Principal) async -> ToolCallOutcome {
        guard let name = call.params?["name"]?.stringValue else {
            return .error(.invalidParams("tools/call needs params.name (a string)."))
        }
        guard let entry = registry.entry(named: name) else {
            return .error(.invalidParams("Unknown tool: \(name)."))
        }
        let arguments: JSONObject
        switch call.params?["arguments"] {
        case nil, .null?: arguments = [:]
        case .object(let object)?: arguments = object
        default:
            return .error(.invalidParams("params.arguments must be an object."))
        }
        let clock = ContinuousClock()
        let started = clock.now
        let result: ToolResult
        if let violation = entry.input.validate(.object(arguments)) {
            result = ToolResult(error: violation.toolError)
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
    /// the session-ended signal.
    func encode(_ outcome: ToolCallOutcome, id: JSONRPCID, version: ProtocolVersion) -> ([UInt8], HTTPStatus)? {
        switch outcome {
        case .result(let result):
            return (
                JSONRPCEncoding.result(id: id, result.json(for: version), members: envelope.trailer(for: version)), .ok
            )
        case .error(let error):
            return (JSONRPCEncoding.error(id: id, error), Self.status(of: error, in: version.era))
        case .sessionEnded:
            return nil
        }
    }

    /// Runs a single `tools/call` and answers it: the result, its error, or the authenticator's 401.
    func respondToToolCall(
        _ call: JSONRPCRequest, version: ProtocolVersion, principal: Principal, request: Request,
        format: MCPResponses.Format
    ) async -> Response {
        guard
            let (bytes, status) = encode(
                await callTool(call, version: version, principal: principal), id: call.id, version: version)
        else {
            return MCPResponses.withCORS(await authenticator.sessionEnded(request, principal: principal))
        }
        return MCPResponses.payload(bytes, status: status, format: status == .ok ? format : .json)
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
