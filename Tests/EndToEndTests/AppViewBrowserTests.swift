import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

/// The MCP Apps view in a host: `e2e/app_host.html` (the host side of ext-apps 2026-01-26, in headless
/// Chromium) with `mustdo-relay-demo` behind it. The host finds the view through `list_todos`'s
/// `_meta.ui.resourceUri`, loads it with `resources/read` into an iframe sandboxed without
/// `allow-same-origin`, delivers a real `list_todos` result, and forwards the view's `tools/call`s to the
/// relay with a real OAuth token. Each of the four buttons must send the call the app's button means and
/// change the stored record; a read-only token shows no button. Screenshots (en/ja, light/dark,
/// phone/desktop) land in `.build/artifacts/screenshots/app-*.png` for docs/mcp-app.md.
final class AppViewBrowserTests: XCTestCase {
    func testTheTodayViewRendersRealResultsAndItsFourButtonsChangeTheRecords() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("app-view-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let screenshots = try BrowserTests.screenshots(replacing: { $0.hasPrefix("app-") })

        let demo = try ChildProcess(product: "mustdo-relay-demo", ["--port", "0", "--data", data])
        let relay = try await demo.waitForOutput(matching: #"Connector URL \(MCP\):\s+(\S+)/mcp"#)
        let emulator = try await demo.waitForOutput(matching: #"emulator at (http://[0-9.]+:\d+)"#)
        let walk = try await PythonScript.run(
            try ChildProcess.tool("python3"), "Tests/EndToEndTests/e2e/app_host_walk.py",
            ["--relay", relay, "--emulator", emulator, "--out", screenshots], timeout: .seconds(300))
        XCTAssertEqual(walk.status, 0, walk.output)
        XCTAssertEqual(walk.report["failures"] as? [String], [], walk.output)

        let runs = walk.report["runs"] as? [[String: Any]] ?? []
        XCTAssertEqual(runs.count, 8, walk.output)
        for run in runs {
            let label = run["label"] as? String ?? ""
            let bytes = FileManager.default.contents(atPath: "\(screenshots)/\(label).png") ?? Data()
            XCTAssertEqual(Array(bytes.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "\(label) is not a PNG")
            XCTAssertEqual(run["storage"] as? String, "blocked", "\(run)")
        }
        XCTAssertEqual(walk.report["readOnlyButtons"] as? Int, 0, walk.output)
        XCTAssertEqual(walk.report["readOnlyWrite"] as? [AnyHashable], [403, "insufficient_scope"], walk.output)
        let clicks = walk.report["clicks"] as? [String: Any] ?? [:]
        let made = clicks["made"] as? [[Any]] ?? []
        XCTAssertEqual(
            made.compactMap { $0.first as? String }, ["complete_todo", "snooze_todo", "snooze_todo", "snooze_todo"])
        let stored = clicks["stored"] as? [String: [String: Any]] ?? [:]
        XCTAssertEqual(stored["Take medicine"]?["status"] as? String, "done", "\(stored)")
        for title in ["Call the bank", "Water the plants", "Pay the rent"] {
            XCTAssertEqual(stored[title]?["status"] as? String, "pending", "\(stored)")
            XCTAssertNotNil(stored[title]?["snoozedUntil"] as? String, "\(stored)")
        }

        demo.signal(SIGINT)
        let status = try await demo.waitForExit()
        XCTAssertEqual(status, 0, demo.text)
    }
}
