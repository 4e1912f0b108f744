import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

/// Issue 44 in headless Chromium through `mustdo-relay-demo` (real SQLite file, the emulator over
/// HTTP): the consent page's lifetime choice, real tool calls through the relay, and the
/// connections page showing that connection's counts and lifetime beside its end button, in
/// English and Japanese at phone and desktop widths. Then the relay's SQLite files (database and
/// WAL) are searched for the canary title and every record ID the tools returned: neither may be
/// there, while the counts are. Screenshots land in `.build/artifacts/screenshots/act-*`.
final class ActivityBrowserTests: XCTestCase {
    func testTheConnectionsPageShowsWhatEachConnectionDidAndTheStoreKeepsNoTitleOrID() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("activity-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let screenshots = try BrowserTests.screenshots(replacing: { $0.hasPrefix("act-") })

        let demo = try ChildProcess(product: "mustdo-relay-demo", ["--port", "0", "--data", data])
        let relay = try await demo.waitForOutput(matching: #"Connector URL \(MCP\):\s+(\S+)/mcp"#)
        let emulator = try await demo.waitForOutput(matching: #"emulator at (http://[0-9.]+:\d+)"#)
        let walk = try await PythonScript.run(
            try ChildProcess.tool("python3"), "Tests/EndToEndTests/e2e/activity_walk.py",
            ["--relay", relay, "--emulator", emulator, "--out", screenshots], timeout: .seconds(300))
        XCTAssertEqual(walk.status, 0, walk.output)
        XCTAssertEqual(walk.report["failures"] as? [String], [], walk.output)

        let runs = walk.report["runs"] as? [[String: Any]] ?? []
        XCTAssertEqual(
            runs.compactMap { $0["label"] as? String },
            ["act-en-phone", "act-en-desktop", "act-ja-phone", "act-ja-desktop"])
        // Everything the relay stores, read while it runs (the WAL holds the newest pages) and after.
        var stored = Self.relayFiles(in: data)
        demo.signal(SIGINT)
        let status = try await demo.waitForExit()
        XCTAssertEqual(status, 0, demo.text)
        stored += Self.relayFiles(in: data)
        XCTAssertTrue(stored.range(of: Data("ACT#".utf8)) != nil, "the counts are not in the files searched")
        for run in runs {
            let canary = try XCTUnwrap(run["canary"] as? String)
            let ids = run["ids"] as? [String] ?? []
            XCTAssertEqual(ids.count, 3, "\(run)")
            XCTAssertNil(stored.range(of: Data(canary.utf8)), "the relay's store holds a to-do title")
            for id in ids { XCTAssertNil(stored.range(of: Data(id.utf8)), "the relay's store holds record ID \(id)") }
            for page in ["0-consent", "1-connections"] {
                let file = "\(screenshots)/\(run["label"] as? String ?? "")-\(page).png"
                let bytes = FileManager.default.contents(atPath: file) ?? Data()
                XCTAssertEqual(Array(bytes.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "\(file) is not a PNG")
            }
        }
    }

    /// The bytes of the relay's SQLite database and its WAL and shared-memory files (not the
    /// emulator's, which holds the to-dos as Apple would).
    static func relayFiles(in directory: String) -> Data {
        var bytes = Data()
        for suffix in ["", "-wal", "-shm", "-journal"] {
            bytes += FileManager.default.contents(atPath: directory + "/relay.sqlite" + suffix) ?? Data()
        }
        return bytes
    }
}
