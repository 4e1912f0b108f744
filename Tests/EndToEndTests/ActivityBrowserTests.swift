import Foundation
import Testing

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
extension EndToEndSuite {
    @Suite(.timeLimit(.minutes(15))) struct ActivityBrowserTests {
        @Test func testTheConnectionsPageShowsWhatEachConnectionDidAndTheStoreKeepsNoTitleOrID() async throws {
            let browser = try await BrowserDemo("activity", screenshots: { $0.hasPrefix("act-") })
            defer { browser.remove() }
            let (data, screenshots) = (browser.data, browser.screenshots)
            let walk = try await browser.walk("activity_walk.py", timeout: .seconds(300))
            #expect(walk.status == 0, "\(walk.output)")
            #expect(walk.report["failures"] as? [String] == [], "\(walk.output)")

            let runs = walk.report["runs"] as? [[String: Any]] ?? []
            #expect(
                runs.compactMap { $0["label"] as? String } == [
                    "act-en-phone", "act-en-desktop", "act-ja-phone", "act-ja-desktop",
                ])
            // Everything the relay stores, read while it runs (the WAL holds the newest pages) and after.
            var stored = Self.relayFiles(in: data)
            let status = try await browser.stop()
            #expect(status == 0, "\(browser.demo.text)")
            stored += Self.relayFiles(in: data)
            #expect(stored.range(of: Data("ACT#".utf8)) != nil, "the counts are not in the files searched")
            for run in runs {
                let canary = try #require(run["canary"] as? String)
                let ids = run["ids"] as? [String] ?? []
                #expect(ids.count == 3, "\(run)")
                #expect(stored.range(of: Data(canary.utf8)) == nil, "the relay's store holds a to-do title")
                for id in ids {
                    #expect(stored.range(of: Data(id.utf8)) == nil, "the relay's store holds record ID \(id)")
                }
                for page in ["0-consent", "1-connections"] {
                    let file = "\(screenshots)/\(run["label"] as? String ?? "")-\(page).png"
                    #expect(BrowserDemo.isPNG(file), "\(file) is not a PNG")
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
}
