import RelayJSON
import RelayTestSupport
import Testing

@testable import RelayMCP

/// `e2e/wire_check.py`: the official conformance suite's applicable server checks (stateless discovery,
/// version errors, removed methods, resources list/read/not-found, `Mcp-Name`), sent to a real server
/// with an MCP Apps view, every answer validated against the spec's published JSON schema (vendored in
/// `e2e/spec-schema/`, 2025-06-18, 2025-11-25 and 2026-07-28), members the schema does not name included,
/// and parsed by the Python SDK 2.x's generated models. Every check must report SUCCESS.
@Suite(.enabled(if: PythonSDK.pythonExists, "python3 is not installed; skipping the wire conformance checks"))
struct WireConformanceTests {
    @Test func theApplicableConformanceChecksPassWithSchemaValidMessages() async throws {
        let server = try TestServer(
            prompts: SamplePrompts.all, resources: [ResourceTests.view], extensions: ResourceTests.extensions)
        try await withServer(server) { server in
            let outcome = try await PythonScript.run(
                try PythonScript.virtualenv(".venv-mcp2"), PythonSDK.folder + "wire_check.py",
                ["http://127.0.0.1:\(server.port)/mcp", TestServer.token, ResourceTests.view.uri])
            let line = try #require(outcome.reportLine, "\(outcome.output)")
            let report = try JSONValue(parsing: line)
            let checks = try #require(report["checks"]?.objectValue)
            #expect(checks.count >= 30, "\(checks)")
            // Every answer went through the spec's JSON schema.
            #expect(report["unvalidated"] == [], "\(line)")
            #expect((report["validated"]?.intValue ?? 0) >= (report["answers"]?.intValue ?? .max), "\(line)")
            for (id, status) in checks { #expect(status == "SUCCESS", "\(id)") }
            #expect(outcome.status == 0, "\(outcome.output)")
        }
    }
}
