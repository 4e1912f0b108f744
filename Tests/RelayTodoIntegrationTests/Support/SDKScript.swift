import RelayJSON
import RelayTestSupport
import Testing

/// A script of `e2e/` driven by the official MCP Python SDK of one virtualenv (`.venv-mcp1`: 1.x,
/// `.venv-mcp2`: 2.x) against a `ToolHarness`. The script prints one JSON line {"sdk", "checks",
/// "calls", "failures"}; this checks what every such run must show and returns the report for the
/// test's own counts.
enum SDKScript {
    static func run(venv: String, _ script: String, _ arguments: [String]) async throws -> JSONValue {
        let python = try PythonScript.virtualenv(venv)
        // A hung client must not hang the suite.
        let outcome = try await PythonScript.run(
            python, "Tests/RelayTodoIntegrationTests/e2e/" + script, arguments, timeout: .seconds(180))
        let report = try #require(
            outcome.reportLine.flatMap { try? JSONValue(parsing: Array($0.utf8)) }, "\(outcome.output)")
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(report["failures"] == [], "\(report["failures"] ?? .null)")
        #expect(report["sdk"]?.stringValue?.hasPrefix(venv == ".venv-mcp1" ? "1." : "2.") == true)
        return report
    }
}
