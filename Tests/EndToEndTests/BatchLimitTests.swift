import Foundation
import RelayHTTP
import RelayJSON
import Testing

@testable import RelayService

/// 2025-03-26 batches through the whole relay (real server, real SQLite, the emulator over HTTP):
/// a batch longer than the cap is refused before any of it reaches CloudKit, and every call in a batch
/// counts against the connection's tool-call budget as if it had come alone.
extension EndToEndSuite {
    @Suite(.timeLimit(.minutes(10))) struct BatchLimitTests {
        private func post(_ relay: RelayHarness, _ body: JSONValue, token: String) async throws -> (Int, JSONValue?) {
            let response = try await relay.http.send(
                ClientRequest(
                    method: .post, url: relay.mcpURL,
                    headers: [
                        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                        "Authorization": "Bearer " + token, "MCP-Protocol-Version": "2025-03-26",
                    ],
                    body: body.bytes))
            return (response.status, try? JSONValue(parsing: response.body))
        }

        private func calls(_ count: Int, tool: String = "get_me") -> JSONValue {
            .array(
                (0..<count).map { index in
                    [
                        "jsonrpc": "2.0", "id": .int(index + 1), "method": "tools/call",
                        "params": ["name": .string(tool), "arguments": [:]],
                    ]
                })
        }

        private static func text(_ answer: JSONValue) -> String {
            answer["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
        }

        private func cloudKitOperations(_ relay: RelayHarness) -> Int {
            relay.emulator.statistics()["operations"]?.objectValue?.members.reduce(0) { $0 + ($1.value.intValue ?? 0) }
                ?? 0
        }

        @Test func testABatchOverTheCapIsRefusedWholeAndNothingReachesCloudKit() async throws {
            let relay = try await RelayHarness()
            defer { relay.removeFiles() }
            let tokens = try await OAuthDriver(http: relay.http, issuer: relay.issuer).connect(
                appleID: "batch@example.com")
            let cap = 20  // MCPEndpointConfiguration.maxBatchSize's default

            let before = cloudKitOperations(relay)
            for size in [cap + 1, 2100] {
                let (status, body) = try await post(relay, calls(size), token: tokens.access)
                #expect(status == 400, "batch of \(size)")
                #expect(body?["error"]?["code"]?.intValue == -32600)
                #expect(body?["error"]?["data"]?["maxBatchSize"]?.intValue == cap)
                #expect(body?["id"]?.isNull == true, "a refused batch answers with id null")
            }
            #expect(cloudKitOperations(relay) == before, "a refused batch made CloudKit calls")

            let (status, body) = try await post(relay, calls(cap), token: tokens.access)
            #expect(status == 200)
            let answers = body?.arrayValue ?? []
            #expect(answers.count == cap)
            // 2025-03-26 results carry the structured result as JSON text.
            #expect(
                answers.allSatisfy { Self.text($0).contains("\"today\"") && $0["result"]?["isError"] == nil },
                "\(answers.first.map(\.jsonString) ?? "")")
            // One call at a time per grant: each get_me is at most two CloudKit operations.
            #expect(cloudKitOperations(relay) - before <= 2 * cap)
            await relay.stop()
        }

        @Test func testEveryCallInABatchCountsAgainstTheConnectionsBudget() async throws {
            let relay = try await RelayHarness { $0.toolCallsPerMinute = 15 }
            defer { relay.removeFiles() }
            let tokens = try await OAuthDriver(http: relay.http, issuer: relay.issuer).connect(
                appleID: "budget@example.com")
            let other = try await OAuthDriver(http: relay.http, issuer: relay.issuer).connect(
                appleID: "other@example.com")

            let started = Date()
            let before = cloudKitOperations(relay)
            let (status, body) = try await post(relay, calls(20), token: tokens.access)
            #expect(status == 200)
            let answers = body?.arrayValue ?? []
            #expect(answers.count == 20)
            let refusedFlags = answers.map { $0["result"]?["isError"]?.boolValue == true }
            #expect(refusedFlags == Array(repeating: false, count: 15) + Array(repeating: true, count: 5))
            for answer in answers.suffix(5) {
                #expect(
                    Self.text(answer).hasPrefix("Too many tool calls for this connection. Retry in "),
                    "\(answer.jsonString)")
            }
            let spent = cloudKitOperations(relay) - before
            #expect(spent <= 2 * 15, "refused calls reached CloudKit")

            // The same budget holds for a call sent alone, and it is the connection's, not the relay's.
            if Date().timeIntervalSince(started) < 50 {
                let (alone, content) = try await MCPCalls(http: relay.http, url: relay.mcpURL).tool(
                    "list_todos", token: tokens.access)
                #expect(alone.status == 200)
                #expect(content?["error"]?["code"]?.stringValue == "RATE_LIMITED")
                #expect(content?["error"]?["retryAfter"]?.intValue ?? 0 >= 1)
            }
            let (fresh, content) = try await MCPCalls(http: relay.http, url: relay.mcpURL).tool(
                "get_me", token: other.access)
            #expect(fresh.status == 200)
            #expect(content?["today"] != nil)
            let metrics = try await relay.metricsText()
            #expect(
                metrics.contains(#"relay_mcp_tool_calls_total{tool="get_me",outcome="RATE_LIMITED"} 5"#), "\(metrics)")
            await relay.stop()
        }
    }
}
