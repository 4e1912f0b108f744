import RelayJSON
import Testing

@testable import RelayMCP

/// The official MCP Python SDK clients (1.x with `initialize`, 2.x probing `server/discover` and forced to
/// the legacy revision) list and read an MCP Apps view through their own typed models, the spec's wire
/// schema: the conformance suite's `resources-list` and `resources-read-text`, and
/// `sep-2164-resource-not-found` for a URI not served (-32602 in 2026-07-28, -32002 in 2025).
@Suite(.enabled(if: PythonSDK.pythonExists, "python3 is not installed; skipping the MCP Python SDK resource tests"))
struct PythonSDKResourceTests {
    static let listed: JSONValue = [
        ["uri": "ui://test/view@abc", "name": "view", "mimeType": "text/html;profile=mcp-app"]
    ]

    static func checkRead(_ summary: JSONValue) {
        #expect(summary["resources"] == listed)
        #expect(summary["read"]?[0]?["uri"] == "ui://test/view@abc")
        #expect(summary["read"]?[0]?["mimeType"] == "text/html;profile=mcp-app")
        #expect(summary["read"]?[0]?["text"] == "<!DOCTYPE html><p>hi</p>")
        #expect(summary["read"]?[0]?["meta"] == ["ui": ["prefersBorder": true]])
        try? PythonSDK.checkCommon(summary)
    }

    @Test(arguments: [
        ("1.x", ".venv-mcp1", "auto", -32002), ("2.x auto", ".venv-mcp2", "auto", -32602),
        ("2.x legacy", ".venv-mcp2", "legacy", -32002),
    ])
    func anSDKClientListsAndReadsTheView(label: String, venv: String, mode: String, missing: Int) async throws {
        try await withServer(
            TestServer(pageSize: 2, resources: [ResourceTests.view], extensions: ResourceTests.extensions)
        ) { server in
            let summary = try await PythonSDK.run(venv: venv, port: server.port, mode: mode)
            Self.checkRead(summary)
            #expect(summary["missing"] == .int(missing), "\(label)")
            if mode == "auto", venv == ".venv-mcp2" {
                #expect(summary["protocolVersion"] == "2026-07-28")
                #expect(summary["capabilities"]?["extensions"] == ["io.modelcontextprotocol/ui": [:]])
                #expect(server.exchanges.contains("POST resources/read 200"))
            }
        }
    }
}
