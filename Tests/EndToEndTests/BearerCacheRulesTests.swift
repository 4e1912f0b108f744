import Foundation
import RelayTestSupport
import XCTest

/// The MCP authenticator's cache of validated tokens and the rotated CloudKit token, through a real
/// relay (`mustdo-relay-demo`, whose emulator kills a CloudKit token once it has rotated), the real
/// OAuth flow and raw HTTP from the scripts in `e2e/`.
final class BearerCacheRulesTests: XCTestCase {
    /// Runs `e2e/<script> <relay URL>` against a fresh demo; returns its last JSON line.
    private func runAgainstDemo(_ script: String) async throws -> Any {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let demo = try ChildProcess(product: "mustdo-relay-demo", ["--port", "0", "--data", data])
        let url = try await demo.waitForOutput(matching: #"Connector URL \(MCP\):\s+(\S+)/mcp"#)
        let path = DemoClientTests.repository.appendingPathComponent("Tests/EndToEndTests/e2e/" + script).path
        let client = try ChildProcess(executable: "/usr/bin/env", ["python3", path, url])
        let status = try await client.waitForExit(timeout: .seconds(120))
        let text = client.text
        XCTAssertEqual(status, 0, text)
        let line = try XCTUnwrap(text.split(separator: "\n").last(where: { $0.hasPrefix("{") || $0.hasPrefix("[") }))
        demo.signal(SIGINT)
        _ = try await demo.waitForExit()
        return try JSONSerialization.jsonObject(with: Data(line.utf8))
    }

    /// A cached token skips the bearer precheck; the request rules must still hold for it.
    func testACachedTokenDoesNotBypassTheRequestRules() async throws {
        let output = try await runAgainstDemo("bearer_rules.py")
        let results = try XCTUnwrap(output as? [String: [Any]], "\(output)")
        func outcome(_ name: String) -> String {
            guard let pair = results[name], let status = pair.first as? Int else { return "missing" }
            return "\(status) \(pair.last as? String ?? "-")"
        }
        XCTAssertEqual(outcome("first"), "200 -")
        XCTAssertEqual(outcome("cached"), "200 -")
        XCTAssertEqual(outcome("lowercaseScheme"), "200 -")
        XCTAssertEqual(outcome("otherQuery"), "200 -")
        XCTAssertEqual(outcome("tokenInQuery"), "401 invalid_request")
        XCTAssertEqual(outcome("twoHeaders"), "401 invalid_request")
        XCTAssertEqual(outcome("brokenChecksum"), "401 invalid_token")
        XCTAssertEqual(outcome("otherScheme"), "401 invalid_request")
    }

    /// A refresh changes the grant's version. A tool call with the old (still valid, cached) access
    /// token then rotates the CloudKit token; that token must still be saved, or the next call reads
    /// the dead one, gets 421 and the grant is deleted (found by bench/soak).
    func testAToolCallRacingARefreshKeepsTheRotatedCloudKitToken() async throws {
        let output = try await runAgainstDemo("refresh_then_call.py")
        let steps = try XCTUnwrap(output as? [[Any]], "\(output)")
        XCTAssertEqual(steps.count, 7)
        for (index, step) in steps.enumerated() {
            XCTAssertEqual(step.first as? Int, 200, "call \(index): \(step)")
            XCTAssertTrue(step.last is NSNull, "call \(index): \(step)")
        }
    }
}
