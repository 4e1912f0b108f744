import Foundation
import Testing

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
extension EndToEndSuite {
    @Suite(.timeLimit(.minutes(15))) struct AppViewBrowserTests {
        @Test func testTheViewsRenderRealResultsAndTheirButtonsChangeTheRecords() async throws {
            let browser = try await BrowserDemo(
                "app-view", screenshots: { $0.hasPrefix("app-") || $0.hasPrefix("written-") })
            defer { browser.remove() }
            let screenshots = browser.screenshots
            let walk = try await browser.walk("app_host_walk.py", timeout: .seconds(300))
            #expect(walk.status == 0, "\(walk.output)")
            #expect(walk.report["failures"] as? [String] == [], "\(walk.output)")

            let runs = walk.report["runs"] as? [[String: Any]] ?? []
            #expect(runs.count == 8, "\(walk.output)")
            for run in runs {
                let label = run["label"] as? String ?? ""
                #expect(BrowserDemo.isPNG("\(screenshots)/\(label).png"), "\(label) is not a PNG")
                #expect(run["storage"] as? String == "blocked", "\(run)")
            }
            #expect(walk.report["readOnlyButtons"] as? Int == 0, "\(walk.output)")
            #expect(walk.report["readOnlyWrite"] as? [AnyHashable] == [403, "insufficient_scope"], "\(walk.output)")
            let clicks = walk.report["clicks"] as? [String: Any] ?? [:]
            let made = clicks["made"] as? [[Any]] ?? []
            #expect(
                made.compactMap { $0.first as? String } == [
                    "complete_todo", "snooze_todo", "snooze_todo", "snooze_todo",
                ])
            let stored = clicks["stored"] as? [String: [String: Any]] ?? [:]
            #expect(stored["Take medicine"]?["status"] as? String == "done", "\(stored)")
            for title in ["Call the bank", "Water the plants", "Pay the rent"] {
                #expect(stored[title]?["status"] as? String == "pending", "\(stored)")
                #expect(stored[title]?["snoozedUntil"] as? String != nil, "\(stored)")
            }

            #expect((walk.report["quietHours"] as? [String])?.count == 2, "\(walk.output)")

            let written = try await browser.walk("app_written_walk.py", timeout: .seconds(300))
            #expect(written.status == 0, "\(written.output)")
            #expect(written.report["failures"] as? [String] == [], "\(written.output)")
            let views = written.report["runs"] as? [[String: Any]] ?? []
            #expect(views.count == 8, "\(written.output)")
            for run in views {
                let label = run["label"] as? String ?? ""
                #expect(BrowserDemo.isPNG("\(screenshots)/\(label).png"), "\(label) is not a PNG")
                #expect(run["storage"] as? String == "blocked", "\(run)")
                #expect((run["ring"] as? String)?.hasSuffix("T02:00") == true, "quiet hours' end: \(run)")
            }
            #expect(written.report["gap"] as? String == "2027-03-14T03:00", "\(written.output)")
            let steps = (written.report["clicks"] as? [String: Any])?["steps"] as? [[Any]] ?? []
            #expect(steps.compactMap { $0.first as? String } == ["m10", "h1", "tomorrow", "done"], "\(written.output)")
            #expect(steps.last?.last as? String == "done", "\(written.output)")
            // The views' reading of a repeat's rule agrees with the relay's schedule (fetch's next occurrence).
            let rules = written.report["rules"] as? [String: [String]] ?? [:]
            #expect(rules.count == 7, "\(written.output)")
            for (rule, rings) in rules { #expect(rings.first == rings.last, "\(rule): view, relay") }
            #expect(rules["29 February"]?.last?.hasSuffix("-02-28T08:00") == true, "\(rules)")
            let repeatDone = written.report["repeatDone"] as? [Any] ?? []
            #expect(repeatDone.last as? String == "done", "the repeat's Occurrence record: \(written.output)")
            let undo = written.report["undo"] as? [String: Any] ?? [:]
            #expect((undo["arguments"] as? [String: Any])?["undo"] as? String != nil, "\(written.output)")
            #expect(written.report["readOnlyButtons"] as? Int == 0, "\(written.output)")
            // The relay's real answers to the host (tools/list with the views' _meta, the tools' results, both
            // views' resources/read) against the spec's published schema (Tests/RelayMCPTests/e2e/spec-schema).
            for report in [walk.report, written.report] {
                let schema = report["schema"] as? [String: Any] ?? [:]
                #expect(schema["problems"] as? [String] == [], "\(schema)")
                #expect(schema["validated"] as? Int ?? 0 > 10, "\(schema)")
            }

            let status = try await browser.stop()
            #expect(status == 0, "\(browser.demo.text)")
        }
    }
}
