import Foundation
import RelayTestSupport
import Testing

/// The MCP authenticator's cache of validated tokens and the rotated CloudKit token, through a real
/// relay (`mustdo-relay-demo`, whose emulator kills a CloudKit token once it has rotated), the real
/// OAuth flow and raw HTTP from the scripts in `e2e/`.
extension EndToEndSuite {
    @Suite(.timeLimit(.minutes(10))) struct BearerCacheRulesTests {
        /// Runs `e2e/<script> <relay URL>` against a fresh demo; returns its last JSON line.
        private func runAgainstDemo(_ script: String) async throws -> Any {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: data) }
            let demo = try ChildProcess(product: "mustdo-relay-demo", ["--port", "0", "--data", data])
            let url = try await demo.waitForOutput(matching: #"Connector URL \(MCP\):\s+(\S+)/mcp"#)
            let run = try await PythonScript.run(
                try ChildProcess.tool("python3"), "Tests/EndToEndTests/e2e/" + script, [url], timeout: .seconds(120))
            #expect(run.status == 0, "\(run.output)")
            let line = try #require(run.reportLine, "\(run.output)")
            demo.signal(SIGINT)
            _ = try await demo.waitForExit()
            return try JSONSerialization.jsonObject(with: Data(line.utf8))
        }

        /// A cached token skips the bearer precheck; the request rules must still hold for it.
        @Test func testACachedTokenDoesNotBypassTheRequestRules() async throws {
            let output = try await runAgainstDemo("bearer_rules.py")
            let results = try #require(output as? [String: [Any]], "\(output)")
            func outcome(_ name: String) -> String {
                guard let pair = results[name], let status = pair.first as? Int else { return "missing" }
                return "\(status) \(pair.last as? String ?? "-")"
            }
            #expect(outcome("first") == "200 -")
            #expect(outcome("cached") == "200 -")
            #expect(outcome("lowercaseScheme") == "200 -")
            #expect(outcome("otherQuery") == "200 -")
            #expect(outcome("tokenInQuery") == "401 invalid_request")
            #expect(outcome("twoHeaders") == "401 invalid_request")
            #expect(outcome("brokenChecksum") == "401 invalid_token")
            #expect(outcome("otherScheme") == "401 invalid_request")
        }

        /// A refresh changes the grant's version. A tool call with the old (still valid, cached) access
        /// token then rotates the CloudKit token; that token must still be saved, or the next call reads
        /// the dead one, gets 421 and the grant is deleted (found by bench/soak).
        @Test func testAToolCallRacingARefreshKeepsTheRotatedCloudKitToken() async throws {
            let output = try await runAgainstDemo("refresh_then_call.py")
            let steps = try #require(output as? [[Any]], "\(output)")
            #expect(steps.count == 7)
            for (index, step) in steps.enumerated() {
                #expect(step.first as? Int == 200, "call \(index): \(step)")
                #expect(step.last is NSNull, "call \(index): \(step)")
            }
        }
    }
}
