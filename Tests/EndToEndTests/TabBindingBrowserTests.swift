import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

extension EndToEndSuite {
    /// Issue 37 in headless Chromium through the real binaries (`mustdo-relay-demo` for the relay, and
    /// `mustdo-relay local sign-in` with its own emulator): Apple's callback opened by another site's
    /// navigation, by another site's `window.open`, in a second tab, and replayed afterwards stores nothing
    /// and says so (English and Japanese), for the OAuth consent callback, `/connections`, `/disconnect` and
    /// the local server; the person's own flow in the starting tab still completes; the local start link
    /// works for the first browser only; a site that opened `/connections` or `/disconnect` itself cannot steer
    /// that tab to the callback afterwards. Phone-sized screenshots land in
    /// `.build/artifacts/screenshots/tab-binding/` (the ones in docs/screenshots/tab-binding/ come from it).
    @Suite(.timeLimit(.minutes(15))) struct TabBindingBrowserTests {
        @Test func testNoOtherTabOrSiteCanFinishASignIn() async throws {
            let browser = try await BrowserDemo("tabs", folder: "tab-binding")
            defer { browser.remove() }
            let screenshots = browser.screenshots
            let callbackPort = try freePort()
            let (local, localEmulator) = try await ChildProcess.emulator(
                callback: "http://localhost:\(callbackPort)/mustdo/callback")
            let binary = ChildProcess.productsDirectory.appendingPathComponent("mustdo-relay").path

            let walk = try await browser.walk(
                "tab_binding_walk.py",
                [
                    "--local", binary, "--local-emulator", localEmulator, "--callback-port", String(callbackPort),
                    "--home", browser.data + "/home",
                ], timeout: .seconds(420))
            #expect(walk.status == 0, "\(walk.output)")
            #expect(walk.report["failures"] as? [String] == [], "\(walk.output)")

            let runs = walk.report["runs"] as? [[String: Any]] ?? []
            #expect(
                runs.compactMap { $0["label"] as? String } == [
                    "consent-en", "connections-en", "disconnect-en", "local-en", "consent-ja", "connections-ja",
                    "disconnect-ja", "local-ja", "opener-connections-en", "opener-disconnect-en",
                ])
            for run in runs where (run["label"] as? String)?.hasPrefix("opener") == true {
                // A site that opened the page itself cannot steer the tab afterwards (Cross-Origin-Opener-Policy).
                #expect(run["steer"] as? String == "closed", "\(run)")
                #expect(run["finished"] as? Bool == true, "\(run)")
            }
            for run in runs where (run["label"] as? String)?.hasPrefix("opener") == false {
                let label = run["label"] as? String ?? ""
                let refusal = label.hasPrefix("local") ? "wrong-tab" : "wrong_tab"
                #expect(
                    run["attacks"] as? [String: String] == [
                        "navigation": refusal, "window-open": refusal, "second-tab": refusal,
                    ], "\(label)")
                if label.hasPrefix("local") {
                    #expect(run["secondBrowser"] as? String == "already-opened", "\(label)")
                    #expect(run["finished"] as? String == "signed-in", "\(label)")
                    #expect(["not-started-here", "closed"].contains(run["replay"] as? String ?? ""), "\(label)")
                    #expect(run["savedIsPerson"] as? Bool == true, "\(label)")
                    #expect(run["exit"] as? Int == 0, "\(label)")
                } else {
                    #expect(run["finished"] as? Bool == true, "\(label)")
                    #expect(run["replay"] as? String != nil, "\(label)")
                }
                if label.hasPrefix("consent") {
                    #expect(run["continueAboveFold"] as? Bool == true, "\(label): Continue is below the fold")
                }
                for page in ["1-refused", "2-success"] {
                    #expect(BrowserDemo.isPNG("\(screenshots)/\(label)-\(page).png"), "\(label)-\(page) is not a PNG")
                }
            }

            #expect(try await browser.stop() == 0, "\(browser.demo.text)")
            local.signal(SIGTERM)
            _ = try await local.waitForExit()
        }
    }
}
