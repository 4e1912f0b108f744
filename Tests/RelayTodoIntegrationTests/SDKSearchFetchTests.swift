import RelayJSON
import Testing

/// Issue 14 item 9 end to end: the official MCP Python SDK client (1.x and 2.x, each in its virtualenv from
/// `scripts/install-deps.sh`) calls `search` and `fetch` with ChatGPT's argument shapes and reads the JSON from
/// the one text item, as ChatGPT does → the MCP endpoint → CloudKitClient → the emulator over HTTP with the
/// production schema. `e2e/chatgpt_search_fetch.py` seeds the records as the app writes them.
@Suite struct SDKSearchFetchTests {
    @Test(arguments: [".venv-mcp1", ".venv-mcp2"])
    func chatGPTsSearchAndFetchThroughTheSDK(venv: String) async throws {
        let harness = try ToolHarness(now: "2026-06-10T03:00:00Z")
        let user = try harness.connect("chatgpt@example.com")
        let report = try await SDKScript.run(
            venv: venv, "chatgpt_search_fetch.py",
            ["http://127.0.0.1:\(harness.server.port)/mcp", user.bearer, harness.emulator.baseURL, user.appleID])
        // Every check ran (update both numbers when the script gains checks).
        #expect(report["checks"] == 54, "\(report)")
        #expect(report["calls"] == 11, "\(report)")
        #expect(harness.reportedErrors.isEmpty, "\(harness.reportedErrors)")
        // Reads only: the emulator never saw a write from the relay (the two seeding posts are control calls).
        #expect(harness.emulator.statistics()["operations"]?["records/modify"] == nil)
    }
}
