import RelayHTTP
import RelayJSON

extension MCPEndpoint {
    /// The POST pipeline after authentication: framing checks, then one message or a batch, each
    /// request served in the era it names.
    func post(_ request: Request, principal: Principal) -> Responder.Outcome {
        guard MediaType.isJSON(request.headers["content-type"]) else {
            return .now(MCPResponses.refusal(.unsupportedMediaType, "Unsupported Media Type: send application/json."))
        }
        guard let format = Self.format(accepting: request.headers["accept"]) else {
            return .now(
                MCPResponses.refusal(.notAcceptable, "Not Acceptable: accept application/json and text/event-stream."))
        }
        let body: JSONValue
        do {
            body = try JSONValue(parsing: request.body)
        } catch {
            return .now(
                MCPResponses.error(.badRequest, .parseError("Parse error: \(error.reason) at byte \(error.offset).")))
        }
        let version = Self.headerVersion(request)
        if case .array(let elements) = body {
            return batch(elements, version: version, request: request, principal: principal, format: format)
        }
        let message = JSONRPCMessage.parse(body)
        if case .message(.request(let call)) = message, call.method != "tools/call",
            let wait = authenticator.admitRequest(principal)
        {
            return .now(MCPResponses.rateLimited(id: call.id, retryAfter: wait))
        }
        switch message {
        case .invalid(let id, let error):
            return .now(MCPResponses.error(.badRequest, error, id: id))
        case .message(.request(let message)) where message.method == "initialize" && version.version?.isModern == true:
            // `initialize` does not exist in 2026-07-28: under that header it is an unknown method, HTTP 404
            // with -32601 (`basic/transports/streamable-http.mdx`; the conformance suite's
            // `sep-2575-http-server-method-not-found-404-initialize`), whatever the body holds. Old
            // clients are unaffected: the 1.x Python SDK and the 2.x fallback both send it with no
            // version header (`_probe.py`, `streamable_http.py` drops the probe's header).
            return .now(MCPResponses.error(.notFound, .methodNotFound(message.method), id: message.id))
        case .message(.request(let message)) where message.method == "initialize":
            // The handshake negotiates in the body, whatever a 2025 (or unknown) header says; a 2026
            // `_meta` without any header is still taken as a handshake (lenient: a client that sends
            // no version header has not said it speaks 2026-07-28).
            return .now(reply(answerLegacy(message, version: version.version ?? .latestLegacy), format: format))
        case .message(.request(let call)):
            // Served in the era the request names: a modern version header, or a modern `_meta` under no
            // header or one naming no served revision (the envelope check then refuses the disagreement).
            let namedModern = ModernEnvelope.isNamed(by: call.params)
            if version.version?.isModern == true || (namedModern && (version.raw == nil || version.version == nil)) {
                return postModern(call, request: request, principal: principal, format: format)
            }
            guard let negotiated = version.version else { return .now(versionError(version, id: call.id)) }
            // A modern `_meta` under a served 2025 header is served in that 2025 revision, as the Python
            // SDK routes it: claude.ai connectors send exactly this (anthropics/claude-code#93290), and a
            // 2025 request may carry any `_meta`. Routing headers it mirrors must still agree with the body.
            if namedModern, let mismatch = ModernEnvelope.mirrorMismatch(call, headers: request.headers) {
                return .now(MCPResponses.error(.badRequest, .headerMismatch(mismatch), id: call.id))
            }
            switch answerLegacy(call, version: negotiated) {
            case .ready(let bytes, let status): return .now(MCPResponses.payload(bytes, status: status, format: format))
            case .toolCall(let call):
                return .later { [self] in
                    await respondToToolCall(
                        call, version: negotiated, principal: principal, request: request, format: format)
                }
            }
        case .message(.notification):
            // Accepted and dropped in both eras (2026-07-28 defines no client notification over HTTP;
            // cancelling is closing the stream), unless the header names a version not served.
            guard version.version != nil else { return .now(versionError(version, id: nil)) }
            return .now(MCPResponses.accepted)
        case .message(.response):
            guard let negotiated = version.version else { return .now(versionError(version, id: nil)) }
            guard !negotiated.isModern else {
                let error = MCPError.invalidRequest("A 2026-07-28 client sends requests and notifications only.")
                return .now(MCPResponses.error(.badRequest, error))
            }
            return .now(MCPResponses.accepted)
        }
    }

    private func reply(_ answer: Answer, format: MCPResponses.Format) -> Response {
        guard case .ready(let bytes, let status) = answer else { return MCPResponses.accepted }
        return MCPResponses.payload(bytes, status: status, format: format)
    }

    /// A 2025-03-26 batch: answered as an array of the requests' responses, 202 when it holds none.
    /// At most `maxBatchSize` messages; their tool calls run one after another, never side by side, and
    /// each is admitted on its own (`MCPAuthenticator.admitToolCall`) exactly as if it came alone.
    private func batch(
        _ elements: [JSONValue], version: HeaderVersion, request: Request, principal: Principal,
        format: MCPResponses.Format
    ) -> Responder.Outcome {
        guard let negotiated = version.version else { return .now(versionError(version, id: nil)) }
        guard negotiated.allowsBatches else {
            let error = MCPError.invalidRequest("JSON-RPC batches are not allowed in \(negotiated.rawValue).")
            return .now(MCPResponses.error(.badRequest, error))
        }
        guard !elements.isEmpty else {
            return .now(MCPResponses.error(.badRequest, .invalidRequest("An empty batch is not a JSON-RPC message.")))
        }
        guard elements.count <= configuration.maxBatchSize else {
            let error = MCPError.invalidRequest(
                "A batch may hold at most \(configuration.maxBatchSize) messages; this one holds \(elements.count). "
                    + "Send fewer at once.",
                data: ["maxBatchSize": .int(configuration.maxBatchSize), "received": .int(elements.count)])
            return .now(MCPResponses.error(.badRequest, error))
        }
        var answers: [Answer] = []
        for element in elements {
            switch JSONRPCMessage.parse(element) {
            case .invalid(let id, let error):
                answers.append(.ready(JSONRPCEncoding.error(id: id, error), .ok))
            case .message(.request(let call)):
                if call.method == "initialize" {
                    return .now(MCPResponses.error(.badRequest, .invalidRequest("initialize must not be batched.")))
                }
                if ModernEnvelope.isNamed(by: call.params) {
                    let error = MCPError.invalidRequest("A 2026-07-28 request must be sent alone, never in a batch.")
                    return .now(MCPResponses.error(.badRequest, error))
                }
                if call.method != "tools/call", let wait = authenticator.admitRequest(principal) {
                    answers.append(.ready(JSONRPCEncoding.error(id: call.id, .rateLimited(retryAfter: wait)), .ok))
                    continue
                }
                answers.append(answerLegacy(call, version: negotiated))
            case .message(.notification), .message(.response):
                continue
            }
        }
        guard !answers.isEmpty else { return .now(MCPResponses.accepted) }
        // A batch runs whole or not at all: when one of its tool calls is beyond the token's scope,
        // the whole POST gets the 403 step-up challenge (only an HTTP status makes a client step
        // up) and nothing in it runs, so no call has taken effect when the client retries it.
        let toolCalls = answers.compactMap { answer -> JSONRPCRequest? in
            if case .toolCall(let call) = answer { return call }
            return nil
        }
        if let needed = scopesNeeded(byBatch: toolCalls, principal: principal) {
            return .now(scopeRefusal(principal: principal, needed: needed, id: nil, batch: true))
        }
        if answers.allSatisfy({ if case .ready = $0 { true } else { false } }) {
            return .now(MCPResponses.payload(JSONRPCEncoding.batch(answers.compactMap(\.bytes)), format: format))
        }
        return .later { [self, answers] in
            var bodies: [[UInt8]] = []
            for answer in answers {
                switch answer {
                case .ready(let bytes, _): bodies.append(bytes)
                case .toolCall(let call):
                    let outcome = await callTool(call, version: negotiated, principal: principal)
                    if case .insufficientScope(let needed) = outcome {
                        return scopeRefusal(principal: principal, needed: needed, id: nil, batch: true)
                    }
                    guard let (bytes, _) = encode(outcome, id: call.id, version: negotiated) else {
                        return MCPResponses.withCORS(await authenticator.sessionEnded(request, principal: principal))
                    }
                    bodies.append(bytes)
                }
            }
            return MCPResponses.payload(JSONRPCEncoding.batch(bodies), format: format)
        }
    }

    /// 400 with -32022 for a header naming a version this server does not serve: `data.supported`
    /// lists both eras, so a 2026-era client retries with a mutual version or falls back to
    /// `initialize`.
    private func versionError(_ version: HeaderVersion, id: JSONRPCID?) -> Response {
        MCPResponses.error(.badRequest, .unsupportedProtocolVersion(version.raw ?? ""), id: id)
    }

    /// The `MCP-Protocol-Version` header: absent means 2025-03-26; `version` is nil when it names a
    /// revision this server does not speak.
    struct HeaderVersion {
        var raw: String?
        var version: ProtocolVersion?
    }

    static func headerVersion(_ request: Request) -> HeaderVersion {
        guard let raw = request.headers["mcp-protocol-version"] else {
            return HeaderVersion(raw: nil, version: .assumedWithoutHeader)
        }
        if let version = ProtocolVersion(rawValue: raw) { return HeaderVersion(raw: raw, version: version) }
        let trimmed = String(raw[...].trimmingOWS)
        return HeaderVersion(raw: trimmed, version: ProtocolVersion(rawValue: trimmed))
    }

    /// JSON unless the client accepts only `text/event-stream`; nil when it accepts neither.
    /// A missing `Accept` means anything.
    static func format(accepting accept: String?) -> MCPResponses.Format? {
        guard let accept, !accept.isEmpty else { return .json }
        var eventStream = false
        let json = MediaType.first(in: accept) { type in
            if MediaType.json.matches(type) || MediaType.applicationAny.matches(type) || MediaType.any.matches(type) {
                return true
            }
            if MediaType.eventStream.matches(type) || MediaType.textAny.matches(type) { eventStream = true }
            return false
        }
        if json { return .json }
        return eventStream ? .eventStream : nil
    }
}
