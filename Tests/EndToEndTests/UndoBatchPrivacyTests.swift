import Foundation
import RelayJSON
import Testing

extension EndToEndSuite {
    /// Issue 44 on the hosted relay's own wiring (real SQLite, the vault, logs at debug, the emulator over HTTP): the
    /// batches and undo carry to-do content only between the client and iCloud. The undo handle holds the previous
    /// values sealed, so neither the canary title nor any handle reaches the store, the logs or the metrics, on the
    /// success paths and on the refusals (a stale, a forged and another person's handle).
    @Suite(.timeLimit(.minutes(10))) struct UndoBatchPrivacyTests {
        @Test func testUndoAndBatchesLeaveNoContentOrHandleInTheStoreTheLogsOrTheMetrics() async throws {
            let relay = try await RelayHarness()
            defer { relay.removeFiles() }
            let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let tokens = try await driver.connect(appleID: "undo-canary@example.com")
            let other = try await OAuthDriver(http: relay.http, issuer: relay.issuer).connect(
                appleID: "other@example.com")
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
            let canary = "canary44-\(UUID().uuidString)"
            var handles: [String] = []

            let items: JSONValue = .array(
                (0..<25).map { ["title": .string("\(canary) \($0)"), "notes": .string(canary)] })
            let (added, batch) = try await mcp.tool("add_todos", ["items": items], token: tokens.access)
            #expect(added.status == 200)
            let ids = batch?["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(ids.count == 25, "\(added.body?.jsonString ?? "")")
            handles.append(batch?["undo"]?.stringValue ?? "")
            let some: JSONValue = .array(ids.prefix(5).map { .string($0) })
            for (tool, arguments) in [
                ("complete_todos", ["ids": some] as JSONValue),
                ("snooze_todos", ["ids": some, "until": "2031-05-06T09:00"]),
                ("update_todo", ["id": .string(ids[6]), "title": .string(canary + " renamed")]),
                ("delete_todos", ["ids": some]),
            ] {
                let (reply, content) = try await mcp.tool(tool, arguments, token: tokens.access)
                #expect(reply.status == 200, "\(tool)")
                #expect(content?["error"] == nil, "\(tool): \(reply.body?.jsonString ?? "")")
                handles.append(content?["undo"]?.stringValue ?? "")
            }
            // The delete's undo works; the rename's is refused by another person and, once edited, by anyone.
            let (undone, back) = try await mcp.tool("undo", ["undo": .string(handles[4])], token: tokens.access)
            #expect(back?["results"]?.arrayValue?.count == 5, "\(undone.body?.jsonString ?? "")")
            let (_, foreign) = try await mcp.tool("undo", ["undo": .string(handles[3])], token: other.access)
            #expect(foreign?["error"]?["code"] == "INVALID_ARGUMENT")
            let (_, forged) = try await mcp.tool("undo", ["undo": .string(handles[3] + "A")], token: tokens.access)
            #expect(forged?["error"]?["code"] == "INVALID_ARGUMENT")
            // Stale: the snooze's undo after the delete and its undo changed those five since.
            let (_, stale) = try await mcp.tool("undo", ["undo": .string(handles[2])], token: tokens.access)
            #expect(
                stale?["results"]?.arrayValue?.filter { $0["ok"] == false }.count == 5, "\(stale?.jsonString ?? "")")
            let (_, all) = try await mcp.tool("undo", ["undo": .string(handles[0])], token: tokens.access)
            #expect(all?["results"]?.arrayValue?.count == 25, "\(all?.jsonString ?? "")")
            let metrics = try await relay.metricsText()
            await relay.stop()

            let store = try relay.storeBytes()
            let logs = try relay.logText()
            #expect(!logs.isEmpty, "the relay logged nothing, so the check below proves nothing")
            #expect(handles.filter { $0.hasPrefix("u1.") }.count == 5, "\(handles)")
            for secret in [canary] + handles + handles.map({ String($0.dropFirst(3).prefix(40)) }) {
                #expect(store.range(of: Data(secret.utf8)) == nil, "the to-do or an undo handle is in the SQLite files")
                #expect(!logs.contains(secret), "the to-do or an undo handle is in the logs")
                #expect(!metrics.contains(secret), "the to-do or an undo handle is in the metrics")
            }
            // And it did reach "iCloud".
            #expect(
                try String(contentsOfFile: relay.dataDirectory + "/emulator-state.json", encoding: .utf8).contains(
                    canary))
        }
    }
}
