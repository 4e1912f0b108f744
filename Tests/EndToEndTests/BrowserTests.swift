import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

/// Headless Chromium (Selenium) through `mustdo-relay-demo`: the consent page, the emulator's
/// sign-in, the callback and the disconnect page, in English and Japanese at phone (390×844) and
/// desktop (1280×900) widths, plus framing and script checks on the consent page with a client
/// name made of markup; and the person's side (the consent page's read-only choice, the
/// connections page). Screenshots land in `.build/artifacts/screenshots/`.
final class BrowserTests: XCTestCase {
    static let pages = ["1-consent", "2-sign-in", "3-callback", "4-disconnect", "5-disconnected"]

    func testChromiumWalksConnectAndDisconnectInTwoLanguagesAtTwoWidths() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let screenshots = try Self.screenshots(replacing: { !$0.hasPrefix("conn-") })

        let demo = try ChildProcess(product: "mustdo-relay-demo", ["--port", "0", "--data", data])
        let relay = try await demo.waitForOutput(matching: #"Connector URL \(MCP\):\s+(\S+)/mcp"#)
        let emulator = try await demo.waitForOutput(matching: #"emulator at (http://[0-9.]+:\d+)"#)
        let walk = try await PythonScript.run(
            try ChildProcess.tool("python3"), "Tests/EndToEndTests/e2e/browser_walk.py",
            ["--relay", relay, "--emulator", emulator, "--out", screenshots], timeout: .seconds(120))
        XCTAssertEqual(walk.status, 0, walk.output)
        XCTAssertEqual(walk.report["failures"] as? [String], [], walk.output)

        let runs = walk.report["runs"] as? [[String: Any]] ?? []
        XCTAssertEqual(
            runs.compactMap { $0["label"] as? String }, ["en-phone", "en-desktop", "ja-phone", "ja-desktop"])
        for run in runs {
            let result = run["disconnected"] as? String ?? ""
            XCTAssertTrue(result.contains("Removed 1 connection.") || result.contains("1 件の接続を解除しました"), result)
            for page in Self.pages {
                let file = "\(screenshots)/\(run["label"] as? String ?? "")-\(page).png"
                let bytes = FileManager.default.contents(atPath: file) ?? Data()
                XCTAssertEqual(Array(bytes.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "\(file) is not a PNG")
            }
        }
        let framing = walk.report["framing"] as? [String: [String: Any]] ?? [:]
        XCTAssertEqual(framing["consent"]?["location"] as? String, "chrome-error://chromewebdata/", "\(framing)")
        XCTAssertTrue((framing["control"]?["location"] as? String)?.hasPrefix(emulator) == true, "\(framing)")

        demo.signal(SIGINT)
        let status = try await demo.waitForExit()
        XCTAssertEqual(status, 0, demo.text)
    }

    static let connectionPages = [
        "0-consent", "reader-1-consent-read-only", "2-confirm", "3-list", "4-ended-one", "5-ended-all",
    ]

    /// The person's side: read only chosen on the consent page (a write tool then refused with
    /// 403, a read tool working), the connections page after Apple confirms listing two apps,
    /// ending one (its token refused at once, the other's still working), then ending all; in
    /// both languages at both widths, and the connections page refusing to be framed.
    func testChromiumWalksTheReadOnlyChoiceAndTheConnectionsPage() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let screenshots = try Self.screenshots(replacing: { $0.hasPrefix("conn-") })

        let demo = try ChildProcess(product: "mustdo-relay-demo", ["--port", "0", "--data", data])
        let relay = try await demo.waitForOutput(matching: #"Connector URL \(MCP\):\s+(\S+)/mcp"#)
        let emulator = try await demo.waitForOutput(matching: #"emulator at (http://[0-9.]+:\d+)"#)
        let walk = try await PythonScript.run(
            try ChildProcess.tool("python3"), "Tests/EndToEndTests/e2e/connections_walk.py",
            ["--relay", relay, "--emulator", emulator, "--out", screenshots], timeout: .seconds(300))
        XCTAssertEqual(walk.status, 0, walk.output)
        XCTAssertEqual(walk.report["failures"] as? [String], [], walk.output)

        let runs = walk.report["runs"] as? [[String: Any]] ?? []
        XCTAssertEqual(
            runs.compactMap { $0["label"] as? String },
            ["conn-en-phone", "conn-en-desktop", "conn-ja-phone", "conn-ja-desktop"])
        for run in runs {
            XCTAssertEqual(run["readerScope"] as? String, "todos:read", "\(run)")
            XCTAssertEqual(run["readerWrite"] as? [AnyHashable], [403, "insufficient_scope"], "\(run)")
            XCTAssertEqual((run["endedOne"] as? [String: Any])?["ended"] as? [AnyHashable], [401, "invalid_token"])
            XCTAssertEqual(run["endedAll"] as? [AnyHashable], [401, "invalid_token"], "\(run)")
            for page in Self.connectionPages {
                let file = "\(screenshots)/\(run["label"] as? String ?? "")-\(page).png"
                let bytes = FileManager.default.contents(atPath: file) ?? Data()
                XCTAssertEqual(Array(bytes.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "\(file) is not a PNG")
            }
        }
        let framing = walk.report["framing"] as? [String: Any] ?? [:]
        XCTAssertEqual(framing["location"] as? String, "chrome-error://chromewebdata/", "\(framing)")

        demo.signal(SIGINT)
        let status = try await demo.waitForExit()
        XCTAssertEqual(status, 0, demo.text)
    }

    /// `.build/artifacts/screenshots/`, with the earlier screenshots this test makes (those whose
    /// names `mine` accepts) removed; the other walk's stay.
    static func screenshots(replacing mine: (String) -> Bool) throws -> String {
        let screenshots = PythonScript.repository.appendingPathComponent(".build/artifacts/screenshots").path
        try FileManager.default.createDirectory(atPath: screenshots, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: screenshots) where mine(name) {
            try? FileManager.default.removeItem(atPath: screenshots + "/" + name)
        }
        return screenshots
    }
}
