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
/// change the stored record; a read-only token shows no button; the account's quiet hours (set in its
/// Account record) are said. Then `e2e/app_written_walk.py` shows real writes' results in the "just
/// written" view: the ring time the relay resolved (quiet hours, a skipped clock time, a repeat's first
/// day), the four buttons checked in the emulator's record, Undo calling the `undo` tool with the result's
/// token, and no button on a read-only connection. Screenshots (en/ja, light/dark, phone/desktop) land in
/// `.build/artifacts/screenshots/app-*.png` and `written-*.png` for docs/mcp-app.md.
final class AppViewBrowserTests: XCTestCase {
    func testTheViewsRenderRealResultsAndTheirButtonsChangeTheRecords() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("app-view-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let screenshots = try BrowserTests.screenshots(replacing: { $0.hasPrefix("app-") || $0.hasPrefix("written-") })

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

        XCTAssertEqual((walk.report["quietHours"] as? [String])?.count, 2, walk.output)

        let written = try await PythonScript.run(
            try ChildProcess.tool("python3"), "Tests/EndToEndTests/e2e/app_written_walk.py",
            ["--relay", relay, "--emulator", emulator, "--out", screenshots], timeout: .seconds(300))
        XCTAssertEqual(written.status, 0, written.output)
        XCTAssertEqual(written.report["failures"] as? [String], [], written.output)
        let views = written.report["runs"] as? [[String: Any]] ?? []
        XCTAssertEqual(views.count, 8, written.output)
        for run in views {
            let label = run["label"] as? String ?? ""
            let bytes = FileManager.default.contents(atPath: "\(screenshots)/\(label).png") ?? Data()
            XCTAssertEqual(Array(bytes.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "\(label) is not a PNG")
            XCTAssertEqual(run["storage"] as? String, "blocked", "\(run)")
            XCTAssertEqual((run["ring"] as? String)?.hasSuffix("T02:00"), true, "quiet hours' end: \(run)")
        }
        XCTAssertEqual(written.report["gap"] as? String, "2027-03-14T03:00", written.output)
        let steps = (written.report["clicks"] as? [String: Any])?["steps"] as? [[Any]] ?? []
        XCTAssertEqual(steps.compactMap { $0.first as? String }, ["m10", "h1", "tomorrow", "done"], written.output)
        XCTAssertEqual(steps.last?.last as? String, "done", written.output)
        // The views' reading of a repeat's rule agrees with the relay's schedule (fetch's next occurrence).
        let rules = written.report["rules"] as? [String: [String]] ?? [:]
        XCTAssertEqual(rules.count, 7, written.output)
        for (rule, rings) in rules { XCTAssertEqual(rings.first, rings.last, "\(rule): view, relay") }
        XCTAssertEqual(rules["29 February"]?.last?.hasSuffix("-02-28T08:00"), true, "\(rules)")
        let repeatDone = written.report["repeatDone"] as? [Any] ?? []
        XCTAssertEqual(repeatDone.last as? String, "done", "the repeat's Occurrence record: \(written.output)")
        let undo = written.report["undo"] as? [String: Any] ?? [:]
        XCTAssertNotNil((undo["arguments"] as? [String: Any])?["undo"] as? String, written.output)
        XCTAssertEqual(written.report["readOnlyButtons"] as? Int, 0, written.output)
        // The relay's real answers to the host (tools/list with the views' _meta, the tools' results, both
        // views' resources/read) against the spec's published schema (Tests/RelayMCPTests/e2e/spec-schema).
        for report in [walk.report, written.report] {
            let schema = report["schema"] as? [String: Any] ?? [:]
            XCTAssertEqual(schema["problems"] as? [String], [], "\(schema)")
            XCTAssertGreaterThan(schema["validated"] as? Int ?? 0, 10, "\(schema)")
        }

        demo.signal(SIGINT)
        let status = try await demo.waitForExit()
        XCTAssertEqual(status, 0, demo.text)
    }
}
