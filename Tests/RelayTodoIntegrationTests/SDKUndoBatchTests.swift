import RelayJSON
import Testing

/// Issue 44 through the official MCP Python SDK client (1.x and 2.x): `e2e/undo_batches.py` undoes every kind of
/// write and checks the emulator's stored records, tries stale, forged, foreign and expired handles, and adds 25
/// to-dos in one batch that one undo removes. The canary title it uses never reaches the relay's reports.
@Suite struct SDKUndoBatchTests {
    @Test(arguments: [".venv-mcp1", ".venv-mcp2"])
    func undoAndBatchesThroughTheSDK(venv: String) async throws {
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let user = try harness.connect("undo@example.com")
        let other = try harness.connect("other@example.com")
        let base = "http://127.0.0.1:\(harness.server.port)"
        let report = try await SDKScript.run(
            venv: venv, "undo_batches.py",
            ["\(base)/mcp", user.bearer, harness.emulator.baseURL, "\(base)/test/clock", user.appleID, other.bearer])
        // Every step was reached (update both numbers when the script gains checks).
        #expect(report["checks"] == 51, "\(report)")
        #expect(report["calls"] == 25, "\(report)")
        #expect(harness.reportedErrors.isEmpty, "\(harness.reportedErrors)")
        #expect(!"\(harness.toolCalls)".contains("CANARY"))
    }
}
