import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

/// `mustdo-relay-demo` as a developer runs it, with the bundled example client on the official MCP
/// Python SDK (both lines): DCR, PKCE, the consent page, the emulator's Apple sign-in, the
/// callback, tokens, then real tool calls. Afterwards nothing of the to-do is in the relay's store
/// or its output.
extension EndToEndSuite {
    @Suite(.timeLimit(.minutes(10))) struct DemoClientTests {
        @Test func testTheExampleClientConnectsThroughTheDemoWithBothSDKLines() async throws {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: data) }
            let demo = try ChildProcess(product: "mustdo-relay-demo", ["--port", "0", "--data", data])
            let url = try await demo.waitForOutput(matching: #"Connector URL \(MCP\):\s+(\S+)"#)
            #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/mcp"), "\(url)")

            // Exactly what the banner tells a developer to run (the 2.x SDK line, in .venv-mcp2).
            let command = try await demo.waitForOutput(
                matching: #"Example client:\s+(examples/connect \S+ --headless \S+)"#)
            let words = command.split(separator: " ").map(String.init)
            #expect(words[1] == url)
            let canary = "canary-\(UUID().uuidString.prefix(8))"
            let connect = PythonScript.path(words[0])
            let latest = try await runClient(
                connect, Array(words.dropFirst()) + ["--add", "\(canary) 2.x", "--due", "2030-01-02T09:00", "--json"])
            // And the 1.x line of the SDK as another person.
            let older = try await runClient(
                try PythonScript.virtualenv(".venv-mcp1"),
                [
                    PythonScript.path("examples/mcp_client.py"), url, "--headless", "bob@example.com", "--add",
                    "\(canary) 1.x", "--due", "2030-01-02T09:00",
                    "--json",
                ])
            // The 2.x SDK's server/discover probe is answered: it speaks 2026-07-28; 1.x initializes.
            #expect(latest["protocolVersion"] as? String == "2026-07-28")
            #expect(older["protocolVersion"] as? String == "2025-11-25")
            for (report, line) in [(latest, "2.x"), (older, "1.x")] {
                #expect(
                    report["tools"] as? [String] == [
                        "get_me", "list_todos", "search", "fetch", "add_todo", "update_todo", "complete_todo",
                        "snooze_todo", "delete_todo", "add_todos", "complete_todos", "snooze_todos", "delete_todos",
                        "undo",
                    ])
                let items = ((report["todos"] as? [String: Any])?["items"] as? [[String: Any]]) ?? []
                #expect(items.compactMap { $0["title"] as? String } == ["\(canary) \(line)"], "\(report)")
                #expect(items.first?["due"] as? String == "2030-01-02T09:00:00+00:00")
            }

            demo.signal(SIGINT)
            let status = try await demo.waitForExit()
            #expect(status == 0, "\(demo.text)")
            // The relay's own state holds no to-do content; the emulator's file is "iCloud" and does.
            for file in try FileManager.default.contentsOfDirectory(atPath: data) where file.hasPrefix("relay.sqlite") {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: data + "/" + file))
                #expect(bytes.range(of: Data(canary.utf8)) == nil, "the to-do title is in \(file)")
            }
            #expect(!demo.text.contains(canary), "the to-do title reached the relay's output")
            let emulatorState = try String(contentsOfFile: data + "/emulator-state.json", encoding: .utf8)
            #expect(emulatorState.contains(canary), "the to-do did not reach CloudKit (the emulator)")
        }

        private func runClient(_ executable: String, _ arguments: [String]) async throws -> [String: Any] {
            let outcome = try await PythonScript.finish(
                ChildProcess(executable: executable, arguments), timeout: .seconds(60))
            #expect(outcome.status == 0, "\(outcome.output)")
            #expect(outcome.reportLine != nil, "no JSON report: \(outcome.output)")
            return outcome.report
        }
    }
}
