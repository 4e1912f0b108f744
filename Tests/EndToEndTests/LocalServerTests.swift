import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

extension EndToEndSuite {
    /// `mustdo-relay local` as a person runs it, with the whole sign-in path real: the official MCP Python SDK's
    /// stdio client (1.x, and 2.x in both eras) starts it; its `sign_in` opens the start link in a headless
    /// "browser" (e2e/local_browser.py), which signs in on the emulator's Apple page; the emulator sends it to the
    /// API token's callback, the relay's https bounce behind nginx with the shipped site file
    /// (`RELAY_LOCAL_BOUNCE_PORTS`); the bounce sends it to localhost, where the local server takes the token.
    /// Then the tools, the prompts and their errors, two processes on one token file, a session CloudKit ends,
    /// and SIGKILL in the middle of token rotation. Afterwards no token and no query string is in any log.
    @Suite(.timeLimit(.minutes(20))) struct LocalServerTests {
        static let tools = [
            "add_todo", "add_todos", "complete_todo", "complete_todos", "delete_todo", "delete_todos", "fetch",
            "get_me",
            "list_todos", "search", "sign_in", "snooze_todo", "snooze_todos", "undo", "update_todo",
        ]
        static let prompts = [
            "plan_my_day", "weekly_review", "clear_backlog", "plan_my_day_ja", "weekly_review_ja", "clear_backlog_ja",
        ]

        @Test func testTheSDKStdioClientsSignInThroughTheBounceAndUseEverything() async throws {
            let directory = try temporaryDirectory(prefix: "local").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let certificates = try await TestCertificates.make(in: directory)
            let port = try freePort()
            let redirectPort = try freePort()
            let callbackPort = try freePort()
            let issuer = "https://127.0.0.1:\(port)"
            let bounce = "\(issuer)/local/callback/\(callbackPort)"

            // The local server's API token has the bounce as its sign-in callback (a production token cannot
            // name http://localhost); the emulator sends the browser there.
            let (emulator, emulatorURL) = try await ChildProcess.emulator(callback: bounce, ["--token-lifetime", "0"])
            let service = try await ServiceDirectory(extra: [
                "RELAY_ISSUER": issuer, "RELAY_TRUSTED_PROXIES": "127.0.0.1", "RELAY_CLOUDKIT_BASE_URL": emulatorURL,
                "RELAY_LOCAL_BOUNCE_PORTS": String(callbackPort),
            ])
            defer { service.remove() }
            let (relay, relayPort) = try await ChildProcess.serve(service)
            let nginx = try await NginxProxy(
                directory: directory + "/nginx", certificates: certificates, upstreamPort: relayPort, port: port,
                redirectPort: redirectPort)
            let binary = ChildProcess.productsDirectory.appendingPathComponent("mustdo-relay").path

            let runs = [
                (".venv-mcp2", "auto", "alice@example.com", "2026-07-28", ["--parallel", "--crash-loop", "12"]),
                (".venv-mcp2", "legacy", "carol@example.com", "2025-11-25", []),
                (".venv-mcp1", "auto", "bob@example.com", "2025-11-25", []),
            ]
            var homes: [String] = []
            for (venv, mode, user, version, extra) in runs {
                let label = "\(venv) \(mode)"
                let home = directory + "/home-\(homes.count)"
                homes.append(home)
                let journal = directory + "/journal-\(homes.count)"
                let run = try await PythonScript.run(
                    try PythonScript.virtualenv(venv), "Tests/EndToEndTests/e2e/local_stdio.py",
                    [
                        binary, home, emulatorURL, String(callbackPort), user, certificates.caFile, journal, "--mode",
                        mode,
                    ]
                        + extra, timeout: .seconds(240))
                #expect(run.status == 0, "\(label): \(run.output)")
                #expect(run.report["failures"] as? [String] == [], "\(label)")
                #expect(run.report["protocolVersion"] as? String == version, "\(label)")
                #expect(run.report["tools"] as? [String] == Self.tools, "\(label)")
                #expect(run.report["prompts"] as? [String] == Self.prompts, "\(label)")
                let capabilities = run.report["capabilities"] as? [String: Any]
                #expect(capabilities?["prompts"] != nil, "\(label): \(String(describing: capabilities))")
                #expect(
                    run.report["promptErrors"] as? [String: Int] == [
                        "unknownPrompt": -32602, "badDate": -32602, "unknownArgument": -32602, "longFocus": -32602,
                    ], "\(label)")
                #expect(run.report["modeAfterSignIn"] as? String == "0o600", "\(label)")
                #expect(run.report["modeAfterCalls"] as? String == "0o600", "\(label)")
                #expect(run.report["tokenFileAfterExpiry"] as? Bool == false, "\(label): the dead token stays")
                if extra.contains("--parallel") {
                    #expect(run.report["parallel"] as? [String] == ["ok"], "\(label): two processes, one file")
                    #expect(run.report["crashLoop"] as? [String] == ["ok"], "\(label): a torn or loose token file")
                    #expect(run.report["leftovers"] as? [String] == [], "\(label)")
                }
                // The browser went Apple → the https bounce → localhost, and ended signed in. Since issue 37 the start
                // page (200) keeps the tab's nonce and goes on by script, and the callback page (200) POSTs (303).
                let pages = try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n").prefix(7)
                #expect(
                    Array(pages) == [
                        "200 http://localhost:\(callbackPort)/mustdo/sign-in", "200 \(emulatorURL)/IDMSWebAuth/auth",
                        "302 \(emulatorURL)/IDMSWebAuth/signin", "302 \(bounce)",
                        "200 http://localhost:\(callbackPort)/mustdo/callback",
                        "303 http://localhost:\(callbackPort)/mustdo/callback",
                        "200 http://localhost:\(callbackPort)/mustdo/done",
                    ], "\(label)")
            }

            let nginxStatus = try await nginx.stop()
            #expect(nginxStatus == 0)
            relay.signal(SIGTERM)
            let relayStatus = try await relay.waitForExit()
            #expect(relayStatus == 0, "\(relay.text)")
            emulator.signal(SIGTERM)
            _ = try await emulator.waitForExit()

            // No token, and nothing of the bounce's query string, in the relay's log, nginx's access log or the
            // local servers' logs.
            let accessLog = try String(contentsOfFile: nginx.accessLog, encoding: .utf8)
            #expect(accessLog.contains(" /local/callback/\(callbackPort) 302 "), "\(accessLog)")
            var logs = ["relay": relay.text, "nginx": accessLog]
            var tokens: [String] = []
            for (index, home) in homes.enumerated() {
                logs["local \(index)"] = try String(contentsOfFile: home + "/stderr.log", encoding: .utf8)
                // Each token the file held, and each one a callback URL carried through the bounce.
                for file in [home + "/tokens", directory + "/journal-\(index + 1).secrets"] {
                    tokens += try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
                }
            }
            #expect(tokens.count >= 12)
            #expect(logs["relay"]!.contains("/local/callback/:port"), "\(logs["relay"]!)")
            for (name, log) in logs {
                for marker in ["ckWebAuthToken", "ckSession", "oauth_token"] + (name == "nginx" ? ["?"] : []) {
                    #expect(!log.contains(marker), "\(marker) in the \(name) log")
                }
                for token in tokens {
                    #expect(!log.contains(token), "a token in the \(name) log")
                    #expect(!log.contains(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!))
                }
            }
        }
    }
}
