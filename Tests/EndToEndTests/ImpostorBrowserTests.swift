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
            let browser = try await BrowserDemo("impostor", folder: "impostor")
            defer { browser.remove() }
            let screenshots = browser.screenshots
            let walk = try await browser.walk("impostor_walk.py", timeout: .seconds(240))
            #expect(walk.status == 0, "\(walk.output)")
            #expect(walk.report["failures"] as? [String] == [], "\(walk.output)")
            let runs = walk.report["runs"] as? [[String: Any]] ?? []
            #expect(runs.compactMap { $0["language"] as? String } == ["en", "ja"])
            for run in runs { #expect(run["signInReached"] as? Bool == true, "\(run)") }
            for language in ["en", "ja"] {
                for page in ["verified", "unverified"] {
                    let file = "\(screenshots)/consent-\(page)-\(language).png"
                    #expect(BrowserDemo.isPNG(file), "consent-\(page)-\(language)")
                }
            }
            #expect(try await browser.stop() == 0, "\(browser.demo.text)")
        }
    }
}
