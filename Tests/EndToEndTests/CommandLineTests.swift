import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

/// The executables as an operator runs them: real processes, real sockets, real signals.
extension EndToEndSuite {
    @Suite(.timeLimit(.minutes(10))) struct CommandLineTests {
        @Test func testServeAnswersHealthzAndExitsCleanlyOnSIGTERM() async throws {
            let service = try await ServiceDirectory()
            defer { service.remove() }
            let relay = try ChildProcess(
                product: "mustdo-relay", ["serve", "--config", service.configFile],
                environment: ["RELAY_HTTP_EVENT_LOOPS": "2"])
            let port = try await relay.waitForOutput(matching: #"listening on http://127\.0\.0\.1:(\d+)"#)
            let response = try httpGet(port: Int(port)!, path: "/healthz")
            #expect(response.status == 200)
            #expect(response.body == "ok")
            relay.signal(SIGTERM)
            let status = try await relay.waitForExit()
            #expect(status == 0, "\(relay.text)")
        }

        @Test func testServeLogsJSONLinesWithoutTargetsAndServesMetricsSeparately() async throws {
            let service = try await ServiceDirectory()
            defer { service.remove() }
            let relay = try ChildProcess(product: "mustdo-relay", ["serve", "--config", service.configFile])
            let port = Int(try await relay.waitForOutput(matching: #"listening on http://127\.0\.0\.1:(\d+)"#))!
            let metricsPort = Int(try await relay.waitForOutput(matching: #"metrics: http://127\.0\.0\.1:(\d+)"#))!
            #expect(try httpGet(port: port, path: "/no-such-page?code=secret-code-123").status == 404)
            #expect(
                try httpGet(port: port, path: "/metrics").status == 404, "metrics must not be on the public listener")
            let line = try await relay.waitForOutput(matching: #"(\{"time":[^\n]*"event":"http.request"[^\n]*\})"#)
            let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(json?["route"] as? String == "unmatched")
            #expect(json?["status"] as? Int == 404)
            #expect((json?["request_id"] as? String)?.count == 16)
            #expect(!relay.text.contains("secret-code-123"), "a request target reached the log")
            #expect(!relay.text.contains("127.0.0.1\""), "an address reached the log")
            let metrics = try httpGet(port: metricsPort, path: "/metrics")
            #expect(metrics.status == 200)
            #expect(
                metrics.body.contains(#"relay_http_requests_total{route="unmatched",status="404"} 2"#),
                "\(metrics.body)")
            #expect(metrics.body.contains("relay_http_open_connections"), "\(metrics.body)")
            func gauge(_ name: String) -> Double? {
                metrics.body.split(separator: "\n").first { $0.hasPrefix(name + " ") }
                    .flatMap { Double($0.split(separator: " ")[1]) }
            }
            for name in ["process_resident_memory_bytes", "relay_heap_in_use_bytes", "relay_heap_held_bytes"] {
                #expect(gauge(name) ?? 0 > 1_000_000, "\(name) must report the process's memory")
            }
            // The relay runs more threads than this machine has cores; malloc's arenas stay at one per core.
            let arenas = gauge("relay_heap_arenas")
            #expect(arenas ?? 0 >= 1)
            #expect(arenas ?? .infinity <= Double(max(2, ProcessInfo.processInfo.activeProcessorCount)))
            relay.signal(SIGINT)
            let status = try await relay.waitForExit()
            #expect(status == 0)
        }

        @Test func testServeRefusesAnInvalidConfigurationWithMessagesThatSayWhatToFix() async throws {
            let relay = try ChildProcess(
                product: "mustdo-relay", ["serve"],
                environment: ["RELAY_PORT": "http", "RELAY_TRUSTED_PROXIES": "10.0.0.0/40"])
            let status = try await relay.waitForExit()
            #expect(status == 1)
            #expect(relay.text.contains("RELAY_PORT: expected a whole number"), "\(relay.text)")
            #expect(relay.text.contains("RELAY_TRUSTED_PROXIES: \"10.0.0.0/40\" is not an IP address"), "\(relay.text)")
        }

        @Test func testServeReadsAConfigFileAndTheEnvironmentWins() async throws {
            let service = try await ServiceDirectory()
            defer { service.remove() }
            let file = URL(fileURLWithPath: service.configFile)
            let handle = try FileHandle(forWritingTo: file)
            handle.seekToEndOfFile()
            handle.write(Data("# a later line wins\nRELAY_PORT=not-a-port\nRELAY_HTTP_HEADER_TIMEOUT='5'\n".utf8))
            try handle.close()
            let bad = try ChildProcess(product: "mustdo-relay", ["serve", "--config", file.path, "--check-config"])
            let status1 = try await bad.waitForExit()
            #expect(status1 == 1)
            let good = try ChildProcess(
                product: "mustdo-relay", ["serve", "--config", file.path, "--check-config"],
                environment: ["RELAY_PORT": "0"])
            let status2 = try await good.waitForExit()
            #expect(status2 == 0, "\(good.text)")
        }

        @Test func testRelayctlConfigCheck() async throws {
            let service = try await ServiceDirectory()
            defer { service.remove() }
            let json = try ChildProcess(
                product: "mustdo-relayctl", ["config", "check", "--config", service.configFile, "--json"],
                environment: ["RELAY_PORT": "-1"])
            let status3 = try await json.waitForExit()
            #expect(status3 == 1)
            #expect(json.text.contains(#""valid":false"#), "\(json.text)")
            #expect(json.text.contains("RELAY_PORT: expected a whole number"), "\(json.text)")
            let ok = try ChildProcess(product: "mustdo-relayctl", ["config", "check", "--config", service.configFile])
            let status4 = try await ok.waitForExit()
            #expect(status4 == 0, "\(ok.text)")
        }

        @Test func testHelpIsPrintedAndUsageErrorsExitWith2() async throws {
            for (name, word) in [("mustdo-relay", "serve"), ("mustdo-relayctl", "config check")] {
                let help = try ChildProcess(product: name, ["--help"])
                let status5 = try await help.waitForExit()
                #expect(status5 == 0)
                #expect(help.text.contains("Usage: \(name)"), "\(help.text)")
                #expect(help.text.contains(word), "\(help.text)")
                let wrong = try ChildProcess(product: name, ["no-such-command"])
                let status6 = try await wrong.waitForExit()
                #expect(status6 == 2)
                #expect(wrong.text.contains("unknown command"), "\(wrong.text)")
            }
            // Help after a subcommand is that subcommand's usage, whatever else is on the line.
            for arguments in [["serve", "--help"], ["serve", "--config", "/nonexistent", "-h"]] {
                let help = try ChildProcess(product: "mustdo-relay", arguments)
                let status = try await help.waitForExit()
                #expect(status == 0, "\(arguments): \(help.text)")
                #expect(help.text.contains("Usage: mustdo-relay \(arguments[0])"), "\(help.text)")
            }
        }

        /// The demo is its own program (the relay people use never links the emulator): its help and
        /// usage errors behave like the others', and `mustdo-relay-demo` says where the demo went.
        @Test func testTheDemoIsItsOwnProgram() async throws {
            let help = try ChildProcess(product: "mustdo-relay-demo", ["--help"])
            let helpStatus = try await help.waitForExit()
            #expect(helpStatus == 0)
            #expect(help.text.contains("Usage: mustdo-relay-demo [--port N] [--data DIR]"), "\(help.text)")
            let wrong = try ChildProcess(product: "mustdo-relay-demo", ["--port", "seventy"])
            let wrongStatus = try await wrong.waitForExit()
            #expect(wrongStatus == 2)
            #expect(wrong.text.contains("Run 'mustdo-relay-demo --help'"), "\(wrong.text)")
            let moved = try ChildProcess(product: "mustdo-relay", ["demo"])
            let movedStatus = try await moved.waitForExit()
            #expect(movedStatus == 2)
            #expect(moved.text.contains("make demo"), "\(moved.text)")
        }
    }
}
