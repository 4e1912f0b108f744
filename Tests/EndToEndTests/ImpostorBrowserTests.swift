import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

extension EndToEndSuite {
    /// Issue 41 in headless Chromium through the real binary (`mustdo-relay-demo`): a client registered
    /// with a known platform's callback is shown verified under the platform's name, never the one it
    /// claims; a self-registered impostor calling itself "Claude" is shown for what it is — the page leads
    /// with the host it returns to, says "Unverified app", gives the name only as a claim and names the
    /// host on the button, above the fold of a phone — in English and Japanese
    /// (`e2e/impostor_walk.py`). Screenshots land in `.build/artifacts/screenshots/impostor/` (the ones in
    /// docs/screenshots/impostor/ come from it).
    @Suite(.timeLimit(.minutes(10))) struct ImpostorBrowserTests {
        @Test func testASelfRegisteredImpostorIsVisiblyNotTheRealOne() async throws {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("impostor-\(UUID().uuidString)")
                .path
            defer { try? FileManager.default.removeItem(atPath: data) }
            let screenshots = PythonScript.repository.appendingPathComponent(".build/artifacts/screenshots/impostor")
                .path
            try? FileManager.default.removeItem(atPath: screenshots)
            try FileManager.default.createDirectory(atPath: screenshots, withIntermediateDirectories: true)

            let demo = try ChildProcess(product: "mustdo-relay-demo", ["--port", "0", "--data", data + "/relay"])
            let relay = try await demo.waitForOutput(matching: #"Connector URL \(MCP\):\s+(\S+)/mcp"#)
            let emulator = try await demo.waitForOutput(matching: #"emulator at (http://[0-9.]+:\d+)"#)
            let walk = try await PythonScript.run(
                try ChildProcess.tool("python3"), "Tests/EndToEndTests/e2e/impostor_walk.py",
                ["--relay", relay, "--emulator", emulator, "--out", screenshots], timeout: .seconds(240))
            #expect(walk.status == 0, "\(walk.output)")
            #expect(walk.report["failures"] as? [String] == [], "\(walk.output)")
            let runs = walk.report["runs"] as? [[String: Any]] ?? []
            #expect(runs.compactMap { $0["language"] as? String } == ["en", "ja"])
            for run in runs { #expect(run["signInReached"] as? Bool == true, "\(run)") }
            for language in ["en", "ja"] {
                for page in ["verified", "unverified"] {
                    let bytes =
                        FileManager.default.contents(atPath: "\(screenshots)/consent-\(page)-\(language).png") ?? Data()
                    #expect(Array(bytes.prefix(4)) == [0x89, 0x50, 0x4E, 0x47], "consent-\(page)-\(language)")
                }
            }
            demo.signal(SIGINT)
            let status = try await demo.waitForExit()
            #expect(status == 0, "\(demo.text)")
        }
    }
}
