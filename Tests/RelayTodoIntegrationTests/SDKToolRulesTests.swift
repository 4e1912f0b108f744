import Foundation
import RelayJSON
import RelayTestSupport
import Testing

/// Issue 22 end to end: the official MCP Python SDK client (1.x and 2.x, each in its virtualenv from
/// `scripts/install-deps.sh`) → the MCP endpoint with the nine tools → CloudKitClient → the emulator over HTTP.
/// `e2e/tool_rules.py` sets the tools' clock to DST weekends in New York and London (and the same weekend in
/// Tokyo), seeds records as the app writes them and reads every write back through the emulator's control API.
@Suite struct SDKToolRulesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test(arguments: [".venv-mcp1", ".venv-mcp2"])
    func theToolsBehaveLikeTheAppThroughTheSDK(venv: String) async throws {
        let python = Self.root.appendingPathComponent("\(venv)/bin/python").path
        try #require(
            FileManager.default.isExecutableFile(atPath: python),
            "\(python) is missing: run scripts/install-deps.sh first")
        let harness = try ToolHarness(now: "2026-06-10T12:00:00Z")
        let user = try harness.connect("rules@example.com")
        let base = "http://127.0.0.1:\(harness.server.port)"
        let script = Self.root.appendingPathComponent("Tests/RelayTodoIntegrationTests/e2e/tool_rules.py").path
        let client = try Subprocess(
            python,
            [
                script, "\(base)/mcp", user.bearer, harness.emulator.baseURL, "\(base)/test/clock",
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
        // Every rule was reached in every zone: a script that stopped early, or skipped a branch, reports fewer
        // (update both numbers when the script gains checks).
        #expect(report["checks"] == 139, "\(report)")
        #expect(report["calls"] == 70, "\(report)")
        #expect(harness.reportedErrors.isEmpty, "\(harness.reportedErrors)")
    }
}
