import RelayHTTP
import RelayJSON

extension MCPEndpoint {
    /// The POST pipeline after authentication: framing checks, then one message or a batch.
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
        switch JSONRPCMessage.parse(body) {
        case .invalid(let id, let error):
            return .now(MCPResponses.error(.badRequest, error, id: id))
        case .message(.request(let message)) where message.method == "initialize":
            let answer = answer(message, version: version.version ?? .latest)
            return .now(reply(answer, format: format))
        case .message(let message):
            if let refusal = versionRefusal(version, message) { return .now(refusal) }
            guard case .request(let call) = message, let negotiated = version.version else {
                return .now(MCPResponses.accepted)
            }
            switch answer(call, version: negotiated) {
            case .ready(let bytes, let status): return .now(MCPResponses.payload(bytes, status: status, format: format))
            case .toolCall(let call):
                return .later { [self] in
                    switch await callTool(call, version: negotiated, principal: principal) {
                    case .reply(let bytes): MCPResponses.payload(bytes, format: format)
                    case .sessionEnded:
                        MCPResponses.withCORS(await authenticator.sessionEnded(request, principal: principal))
                    case .insufficientScope(let needed):
                        scopeRefusal(principal: principal, needed: needed, id: call.id, batch: false)
                    }
                }
            }
        }
    }

    private func reply(_ answer: Answer, format: MCPResponses.Format) -> Response {
        guard case .ready(let bytes, let status) = answer else { return MCPResponses.accepted }
        return MCPResponses.payload(bytes, status: status, format: format)
    }

    /// A 2025-03-26 batch: answered as an array of the requests' responses, 202 when it holds none.
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
        var answers: [Answer] = []
        for element in elements {
            switch JSONRPCMessage.parse(element) {
            case .invalid(let id, let error):
                answers.append(.ready(JSONRPCEncoding.error(id: id, error), .ok))
            case .message(.request(let call)):
                if call.method == "initialize" {
                    return .now(MCPResponses.error(.badRequest, .invalidRequest("initialize must not be batched.")))
                }
                answers.append(answer(call, version: negotiated))
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
                    switch await callTool(call, version: negotiated, principal: principal) {
                    case .reply(let bytes): bodies.append(bytes)
                    case .sessionEnded:
                        return MCPResponses.withCORS(await authenticator.sessionEnded(request, principal: principal))
                    case .insufficientScope(let needed):
                        return scopeRefusal(principal: principal, needed: needed, id: nil, batch: true)
                    }
                }
            }
            return MCPResponses.payload(JSONRPCEncoding.batch(bodies), format: format)
        }
    }

    /// HTTP 403 with the authenticator's `insufficient_scope` challenge and a JSON-RPC error that
    /// says which scopes are missing (RFC 6750 §3.1; MCP 2025-11-25 "Runtime Insufficient Scope
    /// Errors"). `needed`: every scope the request needs; the challenge decides what to ask for.
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

    /// Refuses a non-`initialize` message whose header names an unsupported version, or a request
    /// carrying a 2026-era `_meta` version.
    private func versionRefusal(_ version: HeaderVersion, _ message: JSONRPCMessage) -> Response? {
        let id: JSONRPCID? = if case .request(let call) = message { call.id } else { nil }
        guard version.version != nil else { return versionError(version, id: id) }
        if case .request(let call) = message, let meta = call.metaProtocolVersion,
            ProtocolVersion(rawValue: meta) == nil
        {
            return versionError(HeaderVersion(raw: meta, version: nil), id: id)
        }
        return nil
    }

    /// 400 with -32600 and the supported versions. Deliberately not -32022: that code tells a
    /// 2026-era client the server is modern, and it must fall back to `initialize` instead.
    private func versionError(_ version: HeaderVersion, id: JSONRPCID?) -> Response {
        let requested = version.raw ?? ""
        let error = MCPError.invalidRequest(
            "Unsupported protocol version \"\(requested)\". Supported: "
                + ProtocolVersion.supportedStrings.joined(separator: ", ") + "; start with initialize.",
            data: [
                "supported": .array(ProtocolVersion.supportedStrings.map { .string($0) }),
                "requested": .string(requested),
            ]
        )
        return MCPResponses.error(.badRequest, error, id: id)
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
        let trimmed = String(raw[...].trimmingSpaces)
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

extension Substring {
    /// Without spaces and tabs at either end.
    var trimmingSpaces: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
