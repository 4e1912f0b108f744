import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

/// Headless Chromium (Selenium) through `mustdo-relay-demo`: the consent page, the emulator's
/// sign-in, the callback and the disconnect page, in English and Japanese at phone (390×844) and
/// desktop (1280×900) widths, plus framing and script checks on the consent page with a client
/// name made of markup; and the person's side (the consent page's read-only choice, the
/// connections page). Screenshots land in `.build/artifacts/screenshots/`.
extension EndToEndSuite {
    @Suite(.timeLimit(.minutes(15))) struct BrowserTests {
        static let pages = ["1-consent", "2-sign-in", "3-callback", "4-disconnect", "5-disconnected"]

        @Test func testChromiumWalksConnectAndDisconnectInTwoLanguagesAtTwoWidths() async throws {
            let browser = try await BrowserDemo("browser", screenshots: { !$0.hasPrefix("conn-") })
            defer { browser.remove() }
            let (emulator, screenshots) = (browser.emulator, browser.screenshots)
            let walk = try await browser.walk("browser_walk.py", timeout: .seconds(120))
            #expect(walk.status == 0, "\(walk.output)")
            #expect(walk.report["failures"] as? [String] == [], "\(walk.output)")

            let runs = walk.report["runs"] as? [[String: Any]] ?? []
            #expect(runs.compactMap { $0["label"] as? String } == ["en-phone", "en-desktop", "ja-phone", "ja-desktop"])
            for run in runs {
                let result = run["disconnected"] as? String ?? ""
                #expect(result.contains("Removed 1 connection.") || result.contains("1 件の接続を解除しました"), "\(result)")
                for page in Self.pages {
                    let file = "\(screenshots)/\(run["label"] as? String ?? "")-\(page).png"
                    #expect(BrowserDemo.isPNG(file), "\(file) is not a PNG")
                }
            }
            let framing = walk.report["framing"] as? [String: [String: Any]] ?? [:]
            #expect(framing["consent"]?["location"] as? String == "chrome-error://chromewebdata/", "\(framing)")
            #expect((framing["control"]?["location"] as? String)?.hasPrefix(emulator) == true, "\(framing)")

            let status = try await browser.stop()
            #expect(status == 0, "\(browser.demo.text)")
        }

        static let connectionPages = [
            "0-consent", "reader-1-consent-read-only", "2-confirm", "3-list", "4-ended-one", "5-ended-all",
        ]

        /// The person's side: read only chosen on the consent page (a write tool then refused with
        /// 403, a read tool working), the connections page after Apple confirms listing two apps,
        /// ending one (its token refused at once, the other's still working), then ending all; in
        /// both languages at both widths, and the connections page refusing to be framed.
        @Test func testChromiumWalksTheReadOnlyChoiceAndTheConnectionsPage() async throws {
            let browser = try await BrowserDemo("browser", screenshots: { $0.hasPrefix("conn-") })
            defer { browser.remove() }
            let screenshots = browser.screenshots
            let walk = try await browser.walk("connections_walk.py", timeout: .seconds(300))
            #expect(walk.status == 0, "\(walk.output)")
            #expect(walk.report["failures"] as? [String] == [], "\(walk.output)")

            let runs = walk.report["runs"] as? [[String: Any]] ?? []
            #expect(
                runs.compactMap { $0["label"] as? String } == [
                    "conn-en-phone", "conn-en-desktop", "conn-ja-phone", "conn-ja-desktop",
                ])
            for run in runs {
                #expect(run["readerScope"] as? String == "todos:read", "\(run)")
                #expect(run["readerWrite"] as? [AnyHashable] == [403, "insufficient_scope"], "\(run)")
                #expect((run["endedOne"] as? [String: Any])?["ended"] as? [AnyHashable] == [401, "invalid_token"])
                #expect(run["endedAll"] as? [AnyHashable] == [401, "invalid_token"], "\(run)")
                for page in Self.connectionPages {
                    let file = "\(screenshots)/\(run["label"] as? String ?? "")-\(page).png"
                    #expect(BrowserDemo.isPNG(file), "\(file) is not a PNG")
                }
            }
            let framing = walk.report["framing"] as? [String: Any] ?? [:]
            #expect(framing["location"] as? String == "chrome-error://chromewebdata/", "\(framing)")

            let status = try await browser.stop()
            #expect(status == 0, "\(browser.demo.text)")
        }
    }
}
