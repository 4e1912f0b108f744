import Foundation
import RelayJSON
import Testing

extension EndToEndSuite {
    /// The relay's own wiring, in-process with real SQLite, the real vault and the CloudKit emulator
    /// over HTTP: the per-grant CloudKit session keeps working while CloudKit rotates the token on
    /// every call, a dead CloudKit session ends the grant with a 401, and nothing secret or personal
    /// reaches the store, the logs or the metrics.
    @Suite(.timeLimit(.minutes(10))) struct GrantLifecycleTests {
        @Test func testOneGrantKeepsWorkingWhileCloudKitRotatesItsTokenOnEveryCall() async throws {
            let relay = try await RelayHarness(rotation: .invalidate)
            defer { relay.removeFiles() }
            let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let tokens = try await driver.connect(appleID: "rotation@example.com")
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)

            for index in 0..<20 {
                let (reply, content) = try await mcp.tool("get_me", token: tokens.access)
                #expect(reply.status == 200, "sequential call \(index)")
                #expect(content?["today"] != nil, "sequential call \(index): \(reply.body?.jsonString ?? "")")
            }
            let results = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let (reply, content) = try await mcp.tool("get_me", token: tokens.access)
                        return reply.status == 200 && content?["today"] != nil
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 20, "every concurrent call of the grant must succeed")
            // The token the relay holds now is the one CloudKit issued last: a later call still works.
            let (after, _) = try await mcp.tool("list_todos", token: tokens.access)
            #expect(after.status == 200)
            await relay.stop()
        }

        @Test func testADeadCloudKitSessionEndsTheGrantWithA401AndReconnectingWorks() async throws {
            let relay = try await RelayHarness()
            defer { relay.removeFiles() }
            let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let tokens = try await driver.connect(appleID: "expired@example.com")
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
            let (ok, _) = try await mcp.tool("get_me", token: tokens.access)
            #expect(ok.status == 200)

            _ = try relay.emulator.expireSessions()
            let (ended, _) = try await mcp.tool("get_me", token: tokens.access)
            #expect(ended.status == 401)
            #expect(ended.headers["www-authenticate"]?.contains("error=\"invalid_token\"") == true)
            #expect(ended.headers["www-authenticate"]?.contains("resource_metadata=") == true)
            // The grant is gone: the access token (even cached) and the refresh token no longer work.
            let (again, _) = try await mcp.tool("list_todos", token: tokens.access)
            #expect(again.status == 401)
            let refused = try await driver.refusedRefresh(tokens)
            #expect(refused.status == 400, "the refresh token of a deleted grant still worked")
            #expect(refused.error == "invalid_grant")
            // Reconnecting is one more pass through the flow.
            let fresh = try await driver.connect(appleID: "expired@example.com")
            let (back, content) = try await mcp.tool("get_me", token: fresh.access)
            #expect(back.status == 200)
            #expect(content?["today"] != nil)
            await relay.stop()
        }

        @Test func testNoTokenCodeCloudKitTokenOrToDoReachesTheStoreTheLogsOrTheMetrics() async throws {
            let relay = try await RelayHarness()
            defer { relay.removeFiles() }
            let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
            var tokens = try await driver.connect(appleID: "canary@example.com")
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
            let canary = "canary-\(UUID().uuidString)"
            let (added, content) = try await mcp.tool(
                "add_todo",
                ["title": .string(canary + " title"), "notes": .string(canary + " notes"), "due": "2031-05-06T07:08"],
                token: tokens.access)
            #expect(added.status == 200)
            let id = content?["todo"]?["id"]?.stringValue ?? content?["id"]?.stringValue ?? ""
            #expect(!id.isEmpty, "\(added.body?.jsonString ?? "")")
            _ = try await mcp.tool(
                "update_todo", ["id": .string(id), "notes": .string(canary + " edited")], token: tokens.access)
            _ = try await mcp.tool("list_todos", ["status": "all"], token: tokens.access)
            // ChatGPT's search and fetch carry the content back to the caller, and nowhere else.
            let (searched, found) = try await mcp.tool("search", ["query": .string(canary)], token: tokens.access)
            #expect(
                found?["results"]?.arrayValue?.first?["id"]?.stringValue == id, "\(searched.body?.jsonString ?? "")")
            let (_, fetched) = try await mcp.tool("fetch", ["id": .string(id)], token: tokens.access)
            #expect(fetched?["text"]?.stringValue?.contains(canary + " edited") == true)
            _ = try await mcp.tool("fetch", ["id": .string(canary)], token: tokens.access)
            _ = try await mcp.tool(
                "search", ["query": .string(String(repeating: canary, count: 40))], token: tokens.access)
            tokens = try await driver.refresh(tokens)
            _ = try await mcp.tool(
                "snooze_todo", ["id": .string(id), "until": "2031-05-06T09:00"], token: tokens.access)
            _ = try await mcp.tool("delete_todo", ["id": .string(id)], token: tokens.access)
            let metrics = try await relay.metricsText()
            await relay.stop()

            let store = try relay.storeBytes()
            let logs = try relay.logText()
            #expect(!logs.isEmpty, "the relay logged nothing, so the check below proves nothing")
            #expect(metrics.contains("relay_mcp_tool_calls_total"), "\(metrics)")
            let state = try JSONValue(
                parsing: Data(contentsOf: URL(fileURLWithPath: relay.dataDirectory + "/emulator-state.json")))
            let currentCloudKitTokens = state["sessions"]?.objectValue?.keys ?? []
            #expect(!currentCloudKitTokens.isEmpty)
            let secrets = [canary] + driver.secretsSeen + currentCloudKitTokens
            #expect(driver.secretsSeen.count >= 6)  // code, web auth token, 2 × (access, refresh)
            for secret in secrets {
                #expect(store.range(of: Data(secret.utf8)) == nil, "a secret or the to-do is in the SQLite files")
                #expect(!logs.contains(secret), "a secret or the to-do is in the logs")
                #expect(!metrics.contains(secret), "a secret or the to-do is in the metrics")
            }
            // And it did reach "iCloud": the emulator holds the to-do the relay never kept.
            #expect(
                try String(contentsOfFile: relay.dataDirectory + "/emulator-state.json", encoding: .utf8).contains(
                    canary))
        }
    }
}
