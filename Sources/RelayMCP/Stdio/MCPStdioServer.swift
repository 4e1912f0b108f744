import RelayHTTP
import RelayJSON
import RelaySync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// MCP over stdio (`basic/transports/stdio.mdx` of 2026-07-28, and the stdio section of each 2025
/// revision's `basic/transports.mdx`): one JSON-RPC message per line on standard input, one per line
/// on standard output, nothing else on standard output (logs go to standard error).
///
/// It serves the same tools and prompts, through the same code, as `MCPEndpoint` over HTTP
/// (`answerFeature`, `callTool`, `encode`); only the framing and the era rules differ. The era is a
/// property of the process, decided by the client's first request as the official Python SDK 2.x's
/// `serve_dual_era_loop` does: a request carrying the 2026-07-28 `_meta` makes a modern process (every
/// request checked against its own `_meta`; `initialize` then gets -32022 naming the modern
/// versions), anything else a legacy one (`initialize` negotiates a 2025 revision; before it only
/// `ping` is served; a request carrying the 2026 `_meta` then gets -32600). There is no header layer
/// over stdio, so nothing is mirrored and nothing is compared with headers.
///
/// Requests run concurrently (a slow `tools/call` does not hold up a `tools/list`); responses are
/// written whole, one line each, in the order they finish. `notifications/cancelled` cancels a
/// running request, and nothing is written for it afterwards. At end of input, requests still
/// running get `drainTimeout` to finish and are then cancelled.
package final class MCPStdioServer<Principal: MCPPrincipal>: Sendable {
    /// The dispatcher shared with the HTTP transport (its HTTP checks are never used here).
    let endpoint: MCPEndpoint<Principal>
    let principal: Principal
    let sessionEnded: @Sendable (Principal) async -> ToolResult
    let drainTimeout: Duration
    private let state = Locked(State())

    private enum Era {
        case undecided
        /// `negotiated` is nil until `initialize`.
        case legacy(negotiated: ProtocolVersion?)
        case modern
    }

    private struct State {
        var era = Era.undecided
        var running: [JSONRPCID: Task<Void, Never>] = [:]
    }

    /// A server for `principal` (the one person this process acts for). A tool that finds the
    /// person's upstream session gone (`ToolError.sessionEnded()`, a 401 over HTTP) answers with
    /// `sessionEnded`'s result instead: over stdio there is no OAuth to restart, so the result tells
    /// the model how the person signs in again.
    package init(
        configuration: MCPEndpointConfiguration,
        tools: [any Tool<Principal>],
        prompts: [Prompt] = [],
        resources: [Resource] = [],
        extensions: JSONObject = [:],
        principal: Principal,
        drainTimeout: Duration = .seconds(2),
        sessionEnded: @escaping @Sendable (Principal) async -> ToolResult
    ) throws(MCPError) {
        endpoint = try MCPEndpoint(
            configuration: configuration, tools: tools, prompts: prompts, resources: resources, extensions: extensions,
            authenticator: FixedPrincipal(principal: principal))
        self.principal = principal
        self.drainTimeout = drainTimeout
        self.sessionEnded = sessionEnded
    }

    /// Serves until `input` reaches end of file, then waits for running requests (up to
    /// `drainTimeout`), cancels the rest and returns. SIGPIPE is ignored from here on, so a client
    /// that closes its end costs a failed write, not the process.
    package func run(input: Int32 = 0, output: Int32 = 1) async {
        signal(SIGPIPE, SIG_IGN)
        let writer = StdioWriter(descriptor: output)
        for await line in StdioReader.lines(from: input, maxLineBytes: endpoint.configuration.maxBodyBytes) {
            switch line {
            case .tooLong:
                let error = MCPError.invalidRequest(
                    "The message is longer than \(endpoint.configuration.maxBodyBytes) bytes.")
                writer.send(JSONRPCEncoding.error(id: nil, error))
            case .message(let bytes):
                handle(bytes, writer: writer)
            }
        }
        await drain()
    }

    /// Waits for running requests until `drainTimeout`, then cancels what is left.
    private func drain() async {
        let deadline = ContinuousClock.now + drainTimeout
        while ContinuousClock.now < deadline, !state.withLock({ $0.running.isEmpty }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let left = state.withLock { state in
            defer { state.running.removeAll() }
            return Array(state.running.values)
        }
        for task in left { task.cancel() }
        for task in left { await task.value }
    }

    private func handle(_ bytes: [UInt8], writer: StdioWriter) {
        let body: JSONValue
        do {
            body = try JSONValue(parsing: bytes)
        } catch {
            writer.send(
                JSONRPCEncoding.error(id: nil, .parseError("Parse error: \(error.reason) at byte \(error.offset).")))
            return
        }
        if case .array(let elements) = body {
            batch(elements, writer: writer)
            return
        }
        switch JSONRPCMessage.parse(body) {
        case .invalid(let id, let error):
            writer.send(JSONRPCEncoding.error(id: id, error))
        case .message(.notification(let notification)):
            notify(notification)
        case .message(.response):
            // This server never sends requests, so there is nothing a response could answer.
            break
        case .message(.request(let call)):
            request(call, writer: writer)
        }
    }

    /// `notifications/cancelled` stops the request it names; every other notification is accepted
    /// and dropped (`notifications/initialized` included: the process serves as soon as `initialize`
    /// is answered).
    private func notify(_ notification: JSONRPCNotification) {
        guard notification.method == "notifications/cancelled",
            let id = notification.params?["requestId"].flatMap(JSONRPCID.init)
        else { return }
        let task = state.withLock { $0.running.removeValue(forKey: id) }
        task?.cancel()
    }

    /// What one request is, once the era has been applied to it.
    private enum Route {
        case answer(MCPEndpoint<Principal>.Answer, ProtocolVersion)
        case error(MCPError)
        case listen(ProtocolVersion)
    }

    private func request(_ call: JSONRPCRequest, writer: StdioWriter) {
        switch route(call) {
        case .error(let error):
            writer.send(JSONRPCEncoding.error(id: call.id, error))
        case .listen(let version):
            switch endpoint.listenMessages(call, version: version) {
            case .failure(let error): writer.send(JSONRPCEncoding.error(id: call.id, error))
            case .success(let messages): for message in messages { writer.send(message) }
            }
        case .answer(.ready(let bytes, _), _):
            writer.send(bytes)
        case .answer(.toolCall(let call), let version):
            start(call.id, writer: writer) { [self] in await toolCall(call, version: version) }
        }
    }

    /// Applies the process's era to `call` (deciding it on the first request).
    private func route(_ call: JSONRPCRequest) -> Route {
        let namedModern = call.method != "initialize" && ModernEnvelope.isNamed(by: call.params)
        let era = state.withLock { state -> Era in
            if case .undecided = state.era { state.era = namedModern ? .modern : .legacy(negotiated: nil) }
            return state.era
        }
        switch era {
        case .undecided:
            preconditionFailure("the era is decided above")
        case .modern:
            return modern(call)
        case .legacy(let negotiated):
            return legacy(call, negotiated: negotiated, namedModern: namedModern)
        }
    }

    private func modern(_ call: JSONRPCRequest) -> Route {
        if call.method == "initialize" {
            let requested = call.params?["protocolVersion"]?.stringValue ?? ""
            var error = MCPError.unsupportedProtocolVersion(requested)
            error.message =
                "This process serves 2026-07-28 (the client's first request said so); initialize is not accepted."
            var data: JSONObject = ["supported": .array(ProtocolVersion.modernVersions.map { .string($0.rawValue) })]
            if call.params?["protocolVersion"]?.stringValue != nil { data["requested"] = .string(requested) }
            error.data = .object(data)
            return .error(error)
        }
        switch ModernEnvelope.check(call) {
        case .failure(let error):
            return .error(error)
        case .success(let envelope):
            if call.method == "subscriptions/listen" { return .listen(envelope.version) }
            if call.method == "server/discover" {
                return .answer(.ready(endpoint.modernOnlyDiscoverResult.bytes(id: call.id), .ok), envelope.version)
            }
            return .answer(endpoint.answerModern(call, version: envelope.version), envelope.version)
        }
    }

    /// Methods served only after `initialize` in a legacy process.
    private static var sessionMethods: Set<String> { ["tools/list", "tools/call", "prompts/list", "prompts/get"] }

    private func legacy(_ call: JSONRPCRequest, negotiated: ProtocolVersion?, namedModern: Bool) -> Route {
        if namedModern {
            return .error(
                .invalidRequest(
                    "This process serves the 2025 revisions (it opened with initialize); "
                        + "requests carrying the 2026-07-28 _meta are not accepted."))
        }
        if call.method == "initialize" {
            let answer = endpoint.answerLegacy(call, version: .latestLegacy)
            if let requested = call.params?["protocolVersion"]?.stringValue {
                let offered = ProtocolVersion(rawValue: requested).flatMap { $0.isModern ? nil : $0 }
                state.withLock { $0.era = .legacy(negotiated: offered ?? .latestLegacy) }
            }
            return .answer(answer, .latestLegacy)
        }
        guard let negotiated else {
            if Self.sessionMethods.contains(call.method) {
                return .error(.invalidParams("Send initialize first (2025 revisions), or the 2026-07-28 _meta."))
            }
            return .answer(endpoint.answerLegacy(call, version: .latestLegacy), .latestLegacy)
        }
        return .answer(endpoint.answerLegacy(call, version: negotiated), negotiated)
    }

    /// A 2025-03-26 batch (the only revision that has them): answered as one array line.
    private func batch(_ elements: [JSONValue], writer: StdioWriter) {
        let negotiated = state.withLock { state -> ProtocolVersion? in
            if case .legacy(let negotiated?) = state.era { return negotiated }
            return nil
        }
        guard let negotiated, negotiated.allowsBatches, !elements.isEmpty else {
            let error = MCPError.invalidRequest("JSON-RPC batches are allowed only in a 2025-03-26 session.")
            writer.send(JSONRPCEncoding.error(id: nil, error))
            return
        }
        var answers: [(JSONRPCID?, MCPEndpoint<Principal>.Answer)] = []
        for element in elements {
            switch JSONRPCMessage.parse(element) {
            case .invalid(let id, let error):
                answers.append((id, .ready(JSONRPCEncoding.error(id: id, error), .ok)))
            case .message(.request(let call)):
                let answer: MCPEndpoint<Principal>.Answer =
                    call.method == "initialize" || ModernEnvelope.isNamed(by: call.params)
                    ? .ready(JSONRPCEncoding.error(id: call.id, .invalidRequest("Not allowed in a batch.")), .ok)
                    : endpoint.answerLegacy(call, version: negotiated)
                answers.append((call.id, answer))
            case .message(.notification(let notification)):
                notify(notification)
            case .message(.response):
                continue
            }
        }
        guard !answers.isEmpty else { return }
        Task { [self] in
            var bodies: [[UInt8]] = []
            for (_, answer) in answers {
                switch answer {
                case .ready(let bytes, _): bodies.append(bytes)
                case .toolCall(let call): bodies.append(await toolCall(call, version: negotiated))
                }
            }
            writer.send(JSONRPCEncoding.batch(bodies))
        }
    }

    /// Runs `work` as the request `id`, writing what it returns unless the request was cancelled.
    private func start(_ id: JSONRPCID, writer: StdioWriter, _ work: @escaping @Sendable () async -> [UInt8]) {
        state.withLock { current in
            guard current.running[id] == nil else {
                writer.send(JSONRPCEncoding.error(id: id, .invalidRequest("Request id \(id) is already in use.")))
                return
            }
            current.running[id] = Task { [self] in
                let bytes = await work()
                // Removed here unless a cancellation removed it first: then nothing more is sent for it.
                let current = state.withLock { $0.running.removeValue(forKey: id) }
                if current != nil, !Task.isCancelled { writer.send(bytes) }
            }
        }
    }

    /// A tool call's response line: the result, its JSON-RPC error, `sessionEnded`'s result (the
    /// person's upstream session gone), or a JSON-RPC error naming the scopes the principal lacks
    /// (there is no HTTP status to carry a step-up challenge, and no OAuth to step up with).
    private func toolCall(_ call: JSONRPCRequest, version: ProtocolVersion) async -> [UInt8] {
        let outcome = await endpoint.callTool(call, version: version, principal: principal)
        switch outcome {
        case .insufficientScope(let needed):
            let error = MCPError(
                code: MCPError.Code.serverError,
                message: "Forbidden: this tool needs the scope \(needed.joined(separator: " ")).",
                data: [
                    "error": "insufficient_scope", "requiredScopes": .array(needed.map { .string($0) }),
                    "missingScopes": .array(principal.missingScopes(needed).map { .string($0) }),
                ])
            return JSONRPCEncoding.error(id: call.id, error)
        case .sessionEnded:
            return endpoint.encode(.result(await sessionEnded(principal)), id: call.id, version: version)!.0
        case .result, .error:
            return endpoint.encode(outcome, id: call.id, version: version)!.0
        }
    }
}

/// The authenticator of the stdio transport's endpoint: there is no request to authenticate (the
/// process belongs to the person who started it). Never asked: stdio does not go through `respond`.
private struct FixedPrincipal<Principal: MCPPrincipal>: MCPAuthenticator {
    let principal: Principal

    func authenticateImmediately(_ request: Request) -> MCPAuthentication<Principal>? { .authorized(principal) }
    func authenticate(_ request: Request) async -> MCPAuthentication<Principal> { .authorized(principal) }
    func sessionEnded(_ request: Request, principal: Principal) async -> Response {
        Response(status: .unauthorized, headers: [:], body: [])
    }
    func insufficientScopeChallenge(principal: Principal, needed: [String]) -> String {
        "Bearer error=\"insufficient_scope\""
    }
}
