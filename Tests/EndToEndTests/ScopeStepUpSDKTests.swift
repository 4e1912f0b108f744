import Foundation
import RelayTestSupport
import Testing

extension EndToEndSuite {
    /// The official MCP Python SDK, both lines, holding a read-only token from a running relay
    /// (`mustdo-relay-demo`: the real app, SQLite, the emulator over HTTP). On the 403
    /// `insufficient_scope` both lines re-authorize once with the challenged scopes (which name what
    /// the token had plus what the tool needs, so nothing is lost) and retry; where the step-up is
    /// refused (a client registered for `todos:read` only) each call makes one attempt and fails,
    /// and reading still works: nothing loops (`e2e/scope_step_up.py`).
    @Suite(.timeLimit(.minutes(10))) struct ScopeStepUpSDKTests {
        @Test func testBothSDKLinesStepUpOnceAndNeverLoop() async throws {
            for venv in [".venv-mcp2", ".venv-mcp1"] {
                let python = try PythonScript.virtualenv(venv)
                let data = FileManager.default.temporaryDirectory.appendingPathComponent("stepup-\(UUID().uuidString)")
                    .path
                defer { try? FileManager.default.removeItem(atPath: data) }
                let demo = try ChildProcess(product: "mustdo-relay-demo", ["--port", "0", "--data", data])
                let url = try await demo.waitForOutput(matching: #"Connector URL \(MCP\):\s+(\S+)"#)
                let run = try await PythonScript.run(
                    python, "Tests/EndToEndTests/e2e/scope_step_up.py", [url], timeout: .seconds(240))
                demo.signal(SIGINT)
                _ = try await demo.waitForExit()
                #expect(run.status == 0, "\(run.output)")
                let report = run.report
                #expect((report["sdk"] as? String)?.hasPrefix(venv == ".venv-mcp2" ? "2." : "1.") == true, "\(report)")

                let granted = try #require(report["granted"] as? [String: Any], "\(run.output)")
                #expect(granted["grantedScope"] as? String == "todos:read", "\(venv)")
                #expect(granted["tools"] as? Int == 14, "\(venv): tools/list shows every tool")
                #expect(granted["read"] as? String == "ok", "\(venv)")
                #expect(granted["forbiddenBefore"] as? Int == 0, "\(venv)")
                #expect(granted["write"] as? String == "ok", "\(venv): the write succeeded after stepping up")
                #expect(granted["forbiddenAfterWrite"] as? Int == 1, "\(venv): one 403, then the retry")
                #expect(granted["secondWrite"] as? String == "ok", "\(venv)")
                #expect(granted["forbiddenAtEnd"] as? Int == 1, "\(venv): the stepped-up token writes at once")
                #expect(granted["authorizations"] as? [String] == ["todos:read todos:write"], "\(venv)")
                #expect(granted["scopeAfter"] as? String == "todos:read todos:write", "\(venv)")

                let refused = try #require(report["refused"] as? [String: Any], "\(run.output)")
                #expect(refused["read"] as? String == "ok", "\(venv)")
                let writes = refused["writes"] as? [String] ?? []
                #expect(writes.count == 2, "\(venv)")
                #expect(!(writes.contains("ok") || writes.contains("timeout")), "\(venv): \(writes)")
                #expect(refused["forbidden"] as? Int == 2, "\(venv): one 403 per call, no retry storm")
                #expect(
                    refused["authorizations"] as? [String] == ["todos:read todos:write", "todos:read todos:write"],
                    "\(venv): one re-authorization attempt per call")
                #expect(refused["readAfter"] as? String == "ok", "\(venv): the refused step-up cost nothing")
            }
        }
    }
}
