import RelayJSON

/// 2026-07-28 requests as a conforming client builds them: `_meta` with the version, client info
/// and capabilities, and the routing headers mirroring the body.
extension TestServer {
    static let modernVersion = "2026-07-28"

    /// The per-request `_meta` of a 2026 client.
    static func modernMeta(version: String = modernVersion) -> JSONObject {
        [
            "io.modelcontextprotocol/protocolVersion": .string(version),
            "io.modelcontextprotocol/clientInfo": ["name": "test-client", "version": "1.0"],
            "io.modelcontextprotocol/clientCapabilities": [:],
        ]
    }

    /// A request whose params carry the 2026 `_meta`.
    static func modern(_ method: String, id: JSONValue = 1, params: JSONObject = [:], version: String = modernVersion)
        -> JSONValue
    {
        var params = params
        params["_meta"] = .object(modernMeta(version: version))
        return request(method, id: id, params: params)
    }

    /// The routing headers for `method` (and `Mcp-Name` when the method names something).
    static func modernHeaders(_ method: String, name: String? = nil, version: String = modernVersion) -> [(
        String, String
    )] {
        var headers = [("MCP-Protocol-Version", version), ("Mcp-Method", method)]
        if let name { headers.append(("Mcp-Name", name)) }
        return headers
    }

    /// POSTs a well-formed 2026 request; `Mcp-Name` mirrors `params.name` when there is one.
    func postModern(
        _ method: String, id: JSONValue = 1, params: JSONObject = [:],
        accept: String = "application/json, text/event-stream",
        token: String = TestServer.token,
        extra: [(String, String)] = []
    ) async throws -> RawResponse {
        let headers = [
            ("Host", "127.0.0.1:\(port)"), ("Authorization", "Bearer \(token)"),
            ("Content-Type", "application/json"), ("Accept", accept),
        ]
        return try await send(
            body: Self.modern(method, id: id, params: params).jsonString,
            headers: headers + Self.modernHeaders(method, name: params["name"]?.stringValue) + extra)
    }

    /// A 2026 `tools/call`.
    func callModern(_ tool: String, _ arguments: JSONValue, id: JSONValue = 1, token: String = TestServer.token)
        async throws -> RawResponse
    {
        try await postModern(
            "tools/call", id: id, params: ["name": .string(tool), "arguments": arguments], token: token)
    }
}
