import RelayHTTP
import RelayJSON

/// The 2026-07-28 era: one self-contained request per POST, no handshake, no session.
extension MCPEndpoint {
    /// Serves a request whose body or headers name the modern era: the envelope and routing headers
    /// first (every refusal a 400 with its JSON-RPC error), then the method.
    func postModern(_ call: JSONRPCRequest, request: Request, principal: Principal, format: MCPResponses.Format)
        -> Responder.Outcome
    {
        let version: ProtocolVersion
        switch ModernEnvelope.check(call, headers: request.headers) {
        case .failure(let error): return .now(MCPResponses.error(.badRequest, error, id: call.id))
        case .success(let envelope): version = envelope.version
        }
        if call.method == "subscriptions/listen" { return .now(listen(call, request: request, version: version)) }
        switch answerModern(call, version: version) {
        case .ready(let bytes, let status):
            return .now(MCPResponses.payload(bytes, status: status, format: status == .ok ? format : .json))
        case .toolCall(let call):
            return .later { [self] in
                await respondToToolCall(call, version: version, principal: principal, request: request, format: format)
            }
        }
    }

    /// Answers a modern request (everything but `tools/call` on the spot). `ping`, `initialize` and
    /// `logging/setLevel` do not exist in this revision: like any unknown method, 404 with -32601.
    func answerModern(_ call: JSONRPCRequest, version: ProtocolVersion) -> Answer {
        if let answer = answerFeature(call, version: version) { return answer }
        switch call.method {
        case "server/discover":
            return .ready(discoverResult.bytes(id: call.id), .ok)
        default:
            return failure(call.id, .methodNotFound(call.method), version)
        }
    }

    /// `subscriptions/listen`: the server has no change notification to offer (its lists are fixed),
    /// so it acknowledges an empty filter ("notification types the server does not support are
    /// omitted") and ends the subscription gracefully at once with the completion result, instead of
    /// holding a stream open that would never carry anything. Both travel on one short SSE response
    /// (a listen response is a stream, so the client must accept `text/event-stream`: 406 otherwise).
    func listen(_ call: JSONRPCRequest, request: Request, version: ProtocolVersion) -> Response {
        guard Self.acceptsEventStream(request.headers["accept"]) else {
            return MCPResponses.refusal(
                .notAcceptable, "Not Acceptable: subscriptions/listen answers with text/event-stream.")
        }
        switch listenMessages(call, version: version) {
        case .failure(let error): return MCPResponses.error(.badRequest, error, id: call.id)
        case .success(let messages): return MCPResponses.events(messages)
        }
    }

    /// The acknowledgement and the graceful completion of a `subscriptions/listen` (the same on every
    /// transport), or the -32602 that refuses it.
    func listenMessages(_ call: JSONRPCRequest, version: ProtocolVersion) -> Result<[[UInt8]], MCPError> {
        guard case .object? = call.params?["notifications"] else {
            return .failure(.invalidParams("subscriptions/listen needs params.notifications (an object)."))
        }
        let subscription: JSONObject = [ResultEnvelope.subscriptionIDKey: call.id.json]
        let acknowledged: JSONValue = [
            "jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
            "params": ["_meta": .object(subscription), "notifications": [:]],
        ]
        let closed = envelope.finish([:], version: version, cacheable: false, meta: subscription)
        return .success([acknowledged.bytes, JSONRPCEncoding.result(id: call.id, closed)])
    }

    /// Whether `Accept` admits an SSE response (absent means anything).
    static func acceptsEventStream(_ accept: String?) -> Bool {
        guard let accept, !accept.isEmpty else { return true }
        return MediaType.first(in: accept) { type in
            MediaType.eventStream.matches(type) || MediaType.textAny.matches(type) || MediaType.any.matches(type)
        }
    }
}
