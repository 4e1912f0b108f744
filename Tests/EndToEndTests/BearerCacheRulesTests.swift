import Foundation
import XCTest

/// The MCP authenticator answers a recently validated token from its cache without repeating the
/// bearer precheck; these requests, each with that cached token, must still be refused exactly as
/// the precheck refuses them. Real relay (`mustdo-relay demo`), real OAuth flow, raw HTTP.
final class BearerCacheRulesTests: XCTestCase {
    func testACachedTokenDoesNotBypassTheRequestRules() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let demo = try ChildProcess("mustdo-relay", ["demo", "--port", "0", "--data", data])
        let url = try await demo.waitForOutput(matching: #"Connector URL \(MCP\):\s+(\S+)/mcp"#)

        let script = DemoClientTests.repository.appendingPathComponent("Tests/EndToEndTests/python/bearer_rules.py")
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        client.arguments = ["python3", script.path, url]
        let output = Pipe()
        client.standardOutput = output
        client.standardError = output
        try client.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        client.waitUntilExit()
        XCTAssertEqual(client.terminationStatus, 0, text)
        let line = try XCTUnwrap(text.split(separator: "\n").last(where: { $0.hasPrefix("{") }), text)
        let results = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: [Any]])
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

        demo.signal(SIGINT)
        _ = try await demo.waitForExit()
    }
}
