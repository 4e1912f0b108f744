import RelayHTTP
import RelayJSON

/// Every HTTP response the endpoint sends, with its CORS headers. Header lists are built once.
enum MCPResponses {
    /// Browsers may call `/mcp` from any page: auth is a bearer header, never a cookie. The 401
    /// challenge and the (never issued) session id are exposed for browser-based clients.
    static let allowOrigin = ("Access-Control-Allow-Origin", "*")
    static let exposeHeaders = ("Access-Control-Expose-Headers", "WWW-Authenticate, Mcp-Session-Id")
    static let requestHeaders =
        "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name"
    static let allow = "POST, OPTIONS"

    static let corsHeaders = HTTPHeaders([allowOrigin, exposeHeaders])
    static let jsonHeaders = HTTPHeaders([("Content-Type", "application/json"), allowOrigin, exposeHeaders])
    static let sseHeaders = HTTPHeaders([
        ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), allowOrigin, exposeHeaders,
    ])

    /// How a reply body is framed, from the request's `Accept`.
    enum Format: Sendable {
        case json
        case eventStream
    }

    /// 200 (or another status) with one JSON-RPC payload.
    static func payload(_ body: [UInt8], status: HTTPStatus = .ok, format: Format = .json) -> Response {
        switch format {
        case .json:
            return Response(status: status, headers: jsonHeaders, body: body)
        case .eventStream:
            var framed = Array("event: message\ndata: ".utf8)
            framed.reserveCapacity(body.count + 24)
            framed.append(contentsOf: body)
            framed.append(contentsOf: "\n\n".utf8)
            return Response(status: status, headers: sseHeaders, body: framed)
        }
    }

    /// 200 with several JSON-RPC messages as one SSE stream that ends after the last (a 2026
    /// `subscriptions/listen` acknowledged and closed). `X-Accel-Buffering: no` as the 2026 transport
    /// asks of every SSE response, so a proxy passes events on as they come.
    static func events(_ messages: [[UInt8]]) -> Response {
        var body: [UInt8] = []
        for message in messages {
            body.append(contentsOf: "event: message\ndata: ".utf8)
            body.append(contentsOf: message)
            body.append(contentsOf: "\n\n".utf8)
        }
        var headers = sseHeaders
        headers.add("X-Accel-Buffering", "no")
        return Response(status: .ok, headers: headers, body: body)
    }

    /// A JSON-RPC error carried by an HTTP error status (always JSON, whatever `Accept` said).
    static func error(_ status: HTTPStatus, _ error: MCPError, id: JSONRPCID? = nil) -> Response {
        Response(status: status, headers: jsonHeaders, body: JSONRPCEncoding.error(id: id, error))
    }

    /// 429 for a request over its connection's budget (`MCPAuthenticator.admitRequest`), with
    /// `Retry-After` and the JSON-RPC error naming the wait.
    static func rateLimited(id: JSONRPCID, retryAfter: Int) -> Response {
        var response = error(.tooManyRequests, .rateLimited(retryAfter: retryAfter), id: id)
        response.headers.add("Retry-After", String(retryAfter))
        return response
    }

    /// An HTTP-level refusal (403, 405, 406, 413, 415, 421) with an id-less JSON-RPC error body.
    static func refusal(_ status: HTTPStatus, _ message: String) -> Response {
        error(status, MCPError(code: MCPError.Code.serverError, message: message))
    }

    /// 202 for bodies with only notifications or responses.
    static let accepted = Response(status: .accepted, headers: corsHeaders)

    /// 405 for every method but POST and OPTIONS.
    static let methodNotAllowed: Response = {
        var response = refusal(
            .methodNotAllowed, "Method Not Allowed: this endpoint takes POST (no SSE stream, no sessions).")
        response.headers.add("Allow", allow)
        return response
    }()

    /// The answer to a CORS preflight (or a plain OPTIONS). It never needs a token.
    static func preflight(_ request: Request) -> Response {
        var headers = corsHeaders
        headers.add("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
        var allowed = requestHeaders
        if let asked = request.headers["access-control-request-headers"], isTokenList(asked) {
            allowed = asked
        }
        headers.add("Access-Control-Allow-Headers", allowed)
        headers.add("Access-Control-Max-Age", "86400")
        headers.add("Allow", allow)
        return Response(status: .noContent, headers: headers)
    }

    /// Echoing the requested header names (so `Mcp-Param-*` headers pass too) is safe only for
    /// plain comma-separated tokens.
    private static func isTokenList(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 2048
            && value.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ","),
                    UInt8(ascii: " "):
                    true
                default: false
                }
            }
    }

    /// Adds the CORS headers to a response that came from elsewhere (the authenticator's 401).
    static func withCORS(_ response: Response) -> Response {
        var response = response
        for (name, value) in [allowOrigin, exposeHeaders] where response.headers[name] == nil {
            response.headers.add(name, value)
        }
        return response
    }
}
