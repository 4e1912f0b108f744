import Foundation
import RelayHTTP
import RelayJSON
import RelayTestSupport
import Testing

extension AcceptanceSuite {
    /// A tool call cancelled mid-flight must not lose the token CloudKit rotated to (issue 39 follow-up): the
    /// emulator over HTTP in its default mode (a rotated token dies at once, as Apple documents), CloudKit
    /// slowed to 1.5 s, the call given up while it is at CloudKit; the next call must work without a new sign-in.
    @Suite struct CancelledCallTests {
        /// `mustdo-relay local`: the MCP client's `notifications/cancelled` cancels the call's task.
        @Test func aCallCancelledWhileCloudKitWorksKeepsTheRotatedToken() async throws {
            let http = try HTTPClient.forTests()
            defer { http.shutdown() }
            let emulator = try await EmulatorProcess(http: http)
            let session = try await emulator.control("users/cancel@example.com/sessions", [:])
            let token = try #require(session["webAuthToken"]?.stringValue)
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("cancel-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            let binary = ChildProcess.productsDirectory.appendingPathComponent("mustdo-relay").path
            let output = try await runPython(
                "local_cancel.py",
                [binary, home, emulator.base, EmulatorProcess.apiToken, EmulatorProcess.container, token])
            let line = try #require(output.split(separator: "\n").last(where: { $0.hasPrefix("{") }), "\(output)")
            let report = try JSONValue(parsing: Array(line.utf8))
            #expect(report["first"]?.stringValue == "result", "\(output)")
            #expect(report["reachedCloudKit"]?.boolValue == true, "the cancelled call reached CloudKit: \(output)")
            #expect(report["after"]?.stringValue == "result", "no new sign-in needed after a cancel: \(output)")
            #expect(report["again"]?.stringValue == "result", "\(output)")
            #expect(report["exit"]?.intValue == 0, "\(output)")
        }

        /// `mustdo-relay serve`: the client drops the connection while the call is at CloudKit.
        @Test func aCallWhoseClientHungUpKeepsTheRotatedToken() async throws {
            let fixture = try await RelayFixture()
            defer { fixture.remove() }
            let (http, emulator) = (fixture.http, fixture.emulator)
            let relay = try await fixture.start()
            let (client, tokens) = try await RelayClient.connected(
                http: http, appleID: "hangup@example.com", at: relay.base)
            expectResult(try await client.callTool("get_me", access: tokens.access, at: relay.base))
            for round in 0..<3 {
                try await emulator.control("latency", ["milliseconds": 1500])
                let before = try #require(try await emulator.stats()["databaseRequests"]?.intValue)
                let dropped = try? await client.callTool(
                    "add_todo", ["title": .string("dropped \(round)")], access: tokens.access, at: relay.base,
                    timeout: .milliseconds(700))
                #expect(dropped == nil, "the client gave up before the answer: \(String(describing: dropped))")
                try await emulator.control("latency", ["milliseconds": 0])
                try await Task.sleep(for: .seconds(3))
                // The emulator counts a request once its latency has passed.
                #expect(try #require(try await emulator.stats()["databaseRequests"]?.intValue) > before)
                expectResult(
                    try await client.callTool("get_me", access: tokens.access, at: relay.base), "round \(round)")
            }
            #expect(!relay.child.text.contains("cloudkit.sign_in_required"))
        }
    }
}
