import RelayHTTP

/// CORS for the machine endpoints (metadata, `/register`, `/token`, `/revoke`): any origin, because
/// nothing there rides on cookies; `WWW-Authenticate` exposed so browser-based clients (the MCP
/// Inspector) can read challenges. Pages never get these headers.
package enum CORS {
    /// The request headers MCP clients send.
    package static let allowedHeaders =
        "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name"

    /// Adds the headers of an actual (non-preflight) response.
    package static func apply(to response: inout Response) {
        response.headers.set("Access-Control-Allow-Origin", "*")
        response.headers.set("Access-Control-Expose-Headers", "WWW-Authenticate, Mcp-Session-Id")
    }

    /// The answer to a preflight: 204, never a token needed.
    package static func preflight(methods: String) -> Response {
        var response = Response(status: .noContent)
        apply(to: &response)
        response.headers.set("Access-Control-Allow-Methods", methods)
        response.headers.set("Access-Control-Allow-Headers", allowedHeaders)
        response.headers.set("Access-Control-Max-Age", "86400")
        return response
    }
}
