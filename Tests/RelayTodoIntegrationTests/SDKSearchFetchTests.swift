import Foundation
import RelayJSON
import RelayTestSupport
import Testing

/// Issue 14 item 9 end to end: the official MCP Python SDK client (1.x and 2.x, each in its virtualenv from
/// `scripts/install-deps.sh`) calls `search` and `fetch` with ChatGPT's argument shapes and reads the JSON from
/// the one text item, as ChatGPT does → the MCP endpoint → CloudKitClient → the emulator over HTTP with the
/// production schema. `e2e/chatgpt_search_fetch.py` seeds the records as the app writes them.
@Suite struct SDKSearchFetchTests {
    @Test(arguments: [".venv-mcp1", ".venv-mcp2"])
    func chatGPTsSearchAndFetchThroughTheSDK(venv: String) async throws {
        let python = SDKToolRulesTests.root.appendingPathComponent("\(venv)/bin/python").path
        try #require(
            FileManager.default.isExecutableFile(atPath: python),
            "\(python) is missing: run scripts/install-deps.sh first")
        let harness = try ToolHarness(now: "2026-06-10T03:00:00Z")
        let user = try harness.connect("chatgpt@example.com")
        let script = SDKToolRulesTests.root.appendingPathComponent(
            "Tests/RelayTodoIntegrationTests/e2e/chatgpt_search_fetch.py"
        ).path
        let client = try Subprocess(
            python,
            [
                script, "http://127.0.0.1:\(harness.server.port)/mcp", user.bearer, harness.emulator.baseURL,
                user.appleID,
            ],
            environment: ProcessInfo.processInfo.environment.merging(["PYTHONDONTWRITEBYTECODE": "1"]) { $1 },
            errors: .capture)
        // A hung client must not hang the suite.
        let status = try await client.wait(timeout: .seconds(180)).status
        let line = client.text.split(separator: "\n").last { $0.hasPrefix("{") }
        let report = try #require(
            line.flatMap { try? JSONValue(parsing: Array($0.utf8)) }, "\(client.text)\(client.errorText)")
        #expect(status == 0, "\(client.errorText)")
        #expect(report["failures"] == [], "\(report["failures"] ?? .null)")
        #expect(report["sdk"]?.stringValue?.hasPrefix(venv == ".venv-mcp1" ? "1." : "2.") == true)
        // Every check ran (update both numbers when the script gains checks).
        #expect(report["checks"] == 54, "\(report)")
        #expect(report["calls"] == 11, "\(report)")
        #expect(harness.reportedErrors.isEmpty, "\(harness.reportedErrors)")
        // Reads only: the emulator never saw a write from the relay (the two seeding posts are control calls).
        #expect(harness.emulator.statistics()["operations"]?["records/modify"] == nil)
    }
}
