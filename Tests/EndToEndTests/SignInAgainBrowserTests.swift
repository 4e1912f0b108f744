import Foundation
import RelayTestSupport
import Testing

extension EndToEndSuite {
    /// Headless Chromium (Selenium) signs in to iCloud again for a connection whose CloudKit token died
    /// (issue 39), through `mustdo-relay-demo` (SQLite, the emulator killing a rotated token at once):
    /// the tool call's link, another Apple Account refused with a clear page, the connections page's
    /// "needs iCloud sign-in" with a button and no link, the button leading to a new link's page, the
    /// same account accepted, and the same access token working again; English and Japanese at phone
    /// and desktop widths (`e2e/sign_in_again_walk.py`).
    @Suite struct SignInAgainBrowserTests {
        @Test func chromiumSignsInAgainAsTheSamePersonAndTheConnectionWorksAgain() async throws {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString)")
                .path
            defer { try? FileManager.default.removeItem(atPath: data) }
            let screenshots = PythonScript.repository.appendingPathComponent(".build/artifacts/screenshots").path
            try FileManager.default.createDirectory(atPath: screenshots, withIntermediateDirectories: true)

            let demo = try ChildProcess(product: "mustdo-relay-demo", ["--port", "0", "--data", data])
            let relay = try await demo.waitForOutput(matching: #"Connector URL \(MCP\):\s+(\S+)/mcp"#)
            let emulator = try await demo.waitForOutput(matching: #"emulator at (http://[0-9.]+:\d+)"#)
            let walk = try await PythonScript.run(
                try ChildProcess.tool("python3"), "Tests/EndToEndTests/e2e/sign_in_again_walk.py",
                ["--relay", relay, "--emulator", emulator, "--out", screenshots], timeout: .seconds(400))
            #expect(walk.status == 0, "\(walk.output)")
            #expect(walk.report["failures"] as? [String] == [], "\(walk.output)")
            let runs = walk.report["runs"] as? [[String: Any]] ?? []
            #expect(
                runs.compactMap { $0["label"] as? String }
                    == ["again-en-phone", "again-en-desktop", "again-ja-phone", "again-ja-desktop"])
            for run in runs {
                #expect(run["waiting"] as? Bool == true, "\(run)")
                #expect(run["afterOther"] as? [AnyHashable] == [200, "SIGN_IN_REQUIRED"], "\(run)")
                #expect(run["linksOnPage"] as? Int == 0, "no link on the connections page before the button: \(run)")
                #expect((run["pressedTo"] as? String)?.hasSuffix("/reconnect") == true, "\(run)")
            }
            demo.signal(SIGINT)
            #expect(try await demo.waitForExit() == 0, "\(demo.text)")
        }
    }
}
