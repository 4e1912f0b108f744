import RelayEmulator
import RelayJSON
import Testing

/// Issue 42 through the official MCP Python SDK clients (1.x and 2.x): 5 live to-dos among 600 soft-deleted
/// and 300 done ones, with the emulator putting records without the sort field first, last or leaving them out
/// of sorted queries (Apple documents none of it). `e2e/long_history.py` lists twice and searches; every live
/// one is there and the answers say they are complete. The second list costs one CloudKit call fewer.
@Suite struct SDKLongHistoryTests {
    @Test(arguments: [".venv-mcp1", ".venv-mcp2"], ["first", "last", "omitted"])
    func everyLiveOneThroughTheSDK(venv: String, missing: String) async throws {
        var settings = EmulatorSettings()
        settings.queryPageSize = 100
        settings.missingSortValues = missing
        let harness = try ToolHarness(settings: settings)
        let alice = try harness.connect()
        try LongHistoryToolTests.longHistory(harness, alice, deleted: 600, completed: 300)
        let report = try await SDKScript.run(
            venv: venv, "long_history.py", ["http://127.0.0.1:\(harness.server.port)/mcp", alice.bearer])
        #expect(report["checks"] == 11, "\(report)")
        #expect(report["calls"] == 3, "\(report)")
        #expect(harness.reportedErrors.isEmpty, "\(harness.reportedErrors)")
    }
}
