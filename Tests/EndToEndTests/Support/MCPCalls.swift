import Foundation
import RelayHTTP
import RelayJSON

/// JSON-RPC calls to the relay's `/mcp` with a bearer token.
struct MCPCalls {
    let http: HTTPClient
    let url: String

    struct Reply {
        let status: Int
        let headers: HTTPHeaders
        let body: JSONValue?
    }

    func post(_ method: String, _ params: JSONValue = [:], token: String, id: Int = 1) async throws -> Reply {
        let message: JSONValue = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]
        return try await send(message, token: token)
    }

    /// POSTs any JSON body (a batch, for 2025-03-26) with `version` in `MCP-Protocol-Version` (nil: no header).
    func send(_ body: JSONValue, token: String, version: String? = "2025-11-25") async throws -> Reply {
        var headers: HTTPHeaders = [
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "Authorization": "Bearer " + token,
        ]
        if let version { headers.add("MCP-Protocol-Version", version) }
        let response = try await http.send(ClientRequest(method: .post, url: url, headers: headers, body: body.bytes))
        return Reply(status: response.status, headers: response.headers, body: try? JSONValue(parsing: response.body))
    }

    /// `tools/call`; returns the structured content (or the error object for `isError` results).
    func tool(_ name: String, _ arguments: JSONValue = [:], token: String) async throws -> (
        reply: Reply, content: JSONValue?
    ) {
        let reply = try await post("tools/call", ["name": .string(name), "arguments": arguments], token: token)
        return (reply, reply.body?["result"]?["structuredContent"])
    }
}
