import Foundation
import RelayHTTP
import RelayJSON
import Testing

@Suite struct ToolListTests {
    /// The nine tools, then issue 44's batches and undo.
    @Test func theToolsAreListedWithSchemasAndHints() async throws {
        let harness = try ToolHarness()
        let alice = try harness.connect()
        let body: JSONValue = ["jsonrpc": "2.0", "id": 7, "method": "tools/list"]
        let response = try await harness.http.send(
            ClientRequest(
                method: .post, url: "http://127.0.0.1:\(harness.server.port)/mcp",
                headers: [
                    "Authorization": "Bearer \(alice.bearer)", "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25",
                ],
                body: body.bytes))
        let tools = try JSONValue(parsing: response.body)["result"]?["tools"]?.arrayValue ?? []
        #expect(
            tools.compactMap { $0["name"]?.stringValue } == [
                "get_me", "list_todos", "search", "fetch", "add_todo", "update_todo", "complete_todo", "snooze_todo",
                "delete_todo", "add_todos", "complete_todos", "snooze_todos", "delete_todos", "undo",
            ])
        for tool in tools {
            #expect(tool["title"]?.stringValue?.isEmpty == false)
            #expect(tool["outputSchema"]?["type"] == "object")
            #expect(tool["inputSchema"]?["additionalProperties"] == false)
            #expect(tool["annotations"]?["openWorldHint"] == false)
        }
        #expect(tools.first?["annotations"]?["readOnlyHint"] == true)
        #expect(tools.last?["annotations"]?["destructiveHint"] == true)
        // Listing needs no CloudKit call.
        #expect(alice.session.rotations == 0)
    }
}
