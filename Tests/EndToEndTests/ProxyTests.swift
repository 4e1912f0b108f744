import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

extension EndToEndSuite {
    /// The relay as deployed: `mustdo-relay serve` with an https issuer behind nginx (the shipped site
    /// file, a test CA and certificate), the standalone CloudKit emulator behind nginx with TLS and
    /// HTTP/2 as Apple's endpoint is (`CloudKitFront`, the same CA), and the official MCP Python
    /// SDK client (both lines; the 2.x line in both eras) trusting the test CA through the full OAuth
    /// flow and all nine tools.
    /// Then what the relay publishes and believes behind the proxy: its URLs, its challenge, the `iss`
    /// of the redirect, and forwarded headers a client tries to spoof.
    @Suite(.timeLimit(.minutes(10))) struct ProxyTests {
        static let tools = [
            "get_me", "list_todos", "search", "fetch", "add_todo", "update_todo", "complete_todo", "snooze_todo",
            "delete_todo", "add_todos", "complete_todos", "snooze_todos", "delete_todos", "undo",
        ]
        static let registrationsPerHour = 5

        @Test func testTheSDKClientsWorkThroughNginxWithTLSAndForwardedHeadersCannotBeSpoofed() async throws {
            let directory = try temporaryDirectory(prefix: "proxy").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let certificates = try await TestCertificates.make(in: directory)
            let port = try freePort()
            let redirectPort = try freePort()
            let issuer = "https://127.0.0.1:\(port)"

            let (emulator, emulatorURL) = try await ChildProcess.emulator(callback: issuer + "/oauth/apple/callback")
            // CloudKit as Apple serves it: TLS (a private CA the relay is told to trust) and HTTP/2.
            let cloudKit = try await CloudKitFront(
                directory: directory + "/cloudkit", certificates: certificates, emulatorURL: emulatorURL)
            let service = try await ServiceDirectory(extra: [
                "RELAY_ISSUER": issuer, "RELAY_TRUSTED_PROXIES": "127.0.0.1", "RELAY_CLOUDKIT_BASE_URL": cloudKit.url,
                "RELAY_CLOUDKIT_CA_FILE": certificates.caFile,
                "RELAY_OAUTH_REGISTRATIONS_PER_HOUR": String(Self.registrationsPerHour),
            ])
            defer { service.remove() }
            let (relay, relayPort) = try await ChildProcess.serve(service)
            let nginx = try await NginxProxy(
                directory: directory + "/nginx", certificates: certificates, upstreamPort: relayPort, port: port,
                redirectPort: redirectPort)

            // The 2.x SDK in auto mode speaks 2026-07-28 (its server/discover probe is answered); forced to the
            // legacy revision, and the 1.x SDK, it is a 2025-11-25 session as before.
            let runs = [
                (".venv-mcp2", "auto", "alice@example.com", "2026-07-28"),
                (".venv-mcp2", "legacy", "carol@example.com", "2025-11-25"),
                (".venv-mcp1", "auto", "bob@example.com", "2025-11-25"),
            ]
            for (venv, mode, user, version) in runs {
                let run = try await PythonScript.run(
                    try PythonScript.virtualenv(venv), "Tests/EndToEndTests/e2e/all_tools.py",
                    [issuer + "/mcp", user, "--ca-file", certificates.caFile, "--mode", mode])
                let label = "\(venv) \(mode)"
                #expect(run.status == 0, "\(label): \(run.output)")
                #expect(run.report["protocolVersion"] as? String == version, "\(label)")
                #expect(run.report["failures"] as? [String] == [], "\(label)")
                #expect(run.report["tools"] as? [String] == Self.tools, "\(label)")
                #expect(Set(run.report["calls"] as? [String] ?? []) == Set(Self.tools), "\(label)")
                #expect(run.report["iss"] as? String == issuer, "\(label): the iss of the redirect back")
            }

            let checks = try await PythonScript.run(
                try PythonScript.virtualenv(".venv-mcp2"), "Tests/EndToEndTests/e2e/proxy_checks.py",
                [
                    "--public", issuer, "--relay", "http://127.0.0.1:\(relayPort)", "--redirector",
                    "http://127.0.0.1:\(redirectPort)", "--ca-file", certificates.caFile, "--registrations",
                    String(Self.registrationsPerHour),
                ])
            #expect(checks.status == 0, "\(checks.output)")
            verify(checks.report, issuer: issuer)

            // Both logs are read once nginx stopped: it writes a request's line after the response went
            // out, so the last lines may not exist yet when the script ends.
            let nginxStatus = try await nginx.stop()
            let cloudKitStatus = try await cloudKit.stop()
            verifyAccessLog(try String(contentsOfFile: nginx.accessLog, encoding: .utf8))
            verifyUpstream(cloudKit.requests)
            #expect(cloudKitStatus == 0)
            #expect(nginxStatus == 0)
            try await expectCleanStop(relay: relay, emulator: emulator)
        }

        private func verify(_ report: [String: Any], issuer: String) {
            let document = { (key: String) in (report[key] as? [String: Any])?["document"] as? [String: Any] ?? [:] }
            let prm = document("prm")
            #expect(prm["resource"] as? String == issuer + "/mcp")
            #expect(prm["authorization_servers"] as? [String] == [issuer])
            let metadata = document("asm")
            #expect(metadata["issuer"] as? String == issuer)
            #expect(metadata["token_endpoint"] as? String == issuer + "/token")
            #expect(metadata["authorization_endpoint"] as? String == issuer + "/authorize")

            let challenge =
                "Bearer resource_metadata=\"\(issuer)/.well-known/oauth-protected-resource/mcp\", scope=\"todos:read todos:write\""
            let mcp = report["mcp"] as? [String: Any] ?? [:]
            #expect(mcp["status"] as? Int == 401)
            #expect(mcp["wwwAuthenticate"] as? String == challenge)
            // A client's X-Forwarded-Proto: http, X-Forwarded-Host: evil.example and X-Forwarded-For
            // are overwritten by nginx: the same answer as without them.
            let spoofed = report["mcpSpoofed"] as? [String: Any] ?? [:]
            #expect(spoofed["status"] as? Int == 401, "\(spoofed)")
            #expect(spoofed["wwwAuthenticate"] as? String == challenge)
            // The same headers from a trusted peer are believed: https refused over http, a foreign Host refused.
            let direct = report["direct"] as? [String: Int] ?? [:]
            #expect(direct == ["none": 401, "X-Forwarded-Proto": 403, "X-Forwarded-Host": 421, "healthz": 200])
            // The registration budget counts the real client, whatever X-Forwarded-For it sends through
            // nginx; sent straight to the relay, each spoofed address would have a budget of its own.
            let viaProxy = report["registerViaProxy"] as? [Int] ?? []
            #expect(viaProxy.count == Self.registrationsPerHour + 1)
            #expect(viaProxy.last == 429, "\(viaProxy)")
            #expect(report["registerDirect"] as? [Int] == Array(repeating: 201, count: Self.registrationsPerHour + 1))

            let page = report["page"] as? [String: Any] ?? [:]
            #expect(page["status"] as? Int == 200)
            #expect((page["setCookie"] as? String)?.hasPrefix("__Host-mdr_") == true, "\(page)")
            #expect((page["setCookie"] as? String)?.contains("; Secure") == true, "\(page)")
            #expect(page["frameOptions"] as? String == "DENY")
            #expect((page["csp"] as? String)?.contains("frame-ancestors 'none'") == true, "\(page)")
            #expect(page["hsts"] as? String == "max-age=63072000")
            let plain = report["plainHTTP"] as? [String: Any] ?? [:]
            #expect(plain["status"] as? Int == 301)
            #expect((plain["location"] as? String)?.hasPrefix("https://127.0.0.1") == true, "\(plain)")
        }

        /// Every CloudKit call went over HTTP/2 through the TLS front, on reused connections.
        private func verifyUpstream(_ requests: [CloudKitFront.Request]) {
            let calls = requests.filter { $0.path.hasPrefix("/database/") }
            // Three sign-ins and the nine tools three times, at least.
            #expect(calls.count > 30, "\(requests)")
            #expect(Set(requests.map(\.protocolName)) == ["HTTP/2.0"], "\(requests)")
            // Calls one after another share a connection; each new one is a fresh TCP connection the
            // relay could have avoided.
            let connections = Set(requests.map(\.connection))
            #expect(connections.count * 4 < requests.count, "\(requests)")
        }

        /// The shipped log format keeps paths only: no codes, states or CloudKit tokens from query strings.
        private func verifyAccessLog(_ log: String) {
            for path in [" /authorize ", " /oauth/apple/callback ", " /token ", " /mcp "] {
                #expect(log.contains(path), "no \(path) in the access log:\n\(log)")
            }
            for secret in ["?", "code=", "state=", "ckWebAuthToken", "127.0.0.1"] {
                #expect(!log.contains(secret), "\(secret) in the access log:\n\(log)")
            }
        }
    }
}
