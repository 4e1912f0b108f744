import Foundation
import RelayTestSupport
import Testing

extension EndToEndSuite {
    /// A person pastes the connector URL with a trailing slash (`…/mcp/`). The official Python SDK
    /// (both lines) follows the challenge to the metadata of that URL, whose `resource` is that URL,
    /// sends it as the resource indicator, and its token works: the whole flow, no redirect.
    @Suite(.timeLimit(.minutes(10))) struct TrailingSlashSDKTests {
        @Test func testTheOfficialPythonSDKConnectsToTheURLTypedWithATrailingSlash() async throws {
            let relay = try await RelayHarness()
            try await withCleanup {
                for (line, venv) in [("2.x", ".venv-mcp2"), ("1.x", ".venv-mcp1")] {
                    let outcome = try await PythonScript.run(
                        try PythonScript.virtualenv(venv), "examples/mcp_client.py",
                        [relay.mcpURL + "/", "--headless", "slash-\(line)@example.com", "--json"])
                    #expect(outcome.status == 0, "\(line): \(outcome.output)")
                    #expect((outcome.report["tools"] as? [String])?.contains("list_todos") == true, "\(outcome.output)")
                }
                let metrics = try await relay.metricsText()
                let typed =
                    #"relay_http_requests_total{route="/.well-known/oauth-protected-resource/mcp/",status="200"} "#
                let reads = metrics.split(separator: "\n").first { $0.hasPrefix(typed) }.flatMap {
                    Int($0.dropFirst(typed.count))
                }
                #expect(reads ?? 0 >= 2, "each SDK line read the metadata of the URL as typed:\n\(metrics)")
                #expect(
                    !metrics.contains(#"route="/.well-known/oauth-protected-resource/mcp",status="200""#),
                    "and not the metadata of the other spelling")
            } cleanup: {
                await relay.stop()
                relay.removeFiles()
            }
        }
    }
}
