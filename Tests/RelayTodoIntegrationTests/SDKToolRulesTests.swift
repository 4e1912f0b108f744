import RelayJSON
import Testing

/// Issue 22 end to end: the official MCP Python SDK client (1.x and 2.x, each in its virtualenv from
/// `scripts/install-deps.sh`) → the MCP endpoint with the nine tools → CloudKitClient → the emulator over HTTP.
/// `e2e/tool_rules.py` sets the tools' clock to DST weekends in New York and London (and the same weekend in
/// Tokyo), seeds records as the app writes them and reads every write back through the emulator's control API.
@Suite struct SDKToolRulesTests {
    @Test(arguments: [".venv-mcp1", ".venv-mcp2"])
    func theToolsBehaveLikeTheAppThroughTheSDK(venv: String) async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let user = try harness.connect("rules@example.com")
        let base = "http://127.0.0.1:\(harness.server.port)"
        let report = try await SDKScript.run(
            venv: venv, "tool_rules.py",
            ["\(base)/mcp", user.bearer, harness.emulator.baseURL, "\(base)/test/clock", user.appleID])
        // Every rule was reached in every zone: a script that stopped early, or skipped a branch, reports fewer
        // (update both numbers when the script gains checks).
        #expect(report["checks"] == 139, "\(report)")
        #expect(report["calls"] == 70, "\(report)")
        #expect(harness.reportedErrors.isEmpty, "\(harness.reportedErrors)")
    }
}
