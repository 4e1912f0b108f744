import Foundation
import RelayJSON
import Testing

extension EndToEndSuite {
    /// What the consent page promised is what `/mcp` enforces, through the whole relay (real socket,
    /// SQLite, the vault, the emulator over HTTP): a token granted only `todos:read` ("See your
    /// to-dos") reads, and every tool that changes something answers 403 with the exact
    /// `insufficient_scope` challenge, changes nothing, and leaves the connection as it was.
    @Suite(.timeLimit(.minutes(10))) struct ScopeEnforcementTests {
        @Test func testAReadOnlyTokenReadsAndIsRefusedOnEveryWriteToolWithTheExactChallenge() async throws {
            let relay = try await RelayHarness()
            defer { relay.removeFiles() }
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
            let owner = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let full = try await owner.connect(appleID: "scopes@example.com")
            #expect(owner.lastConsentPage.contains("Add, change, complete, snooze and delete to-dos"))
            let (added, content) = try await mcp.tool("add_todo", ["title": "keep me"], token: full.access)
            #expect(added.status == 200)
            let id = try #require(content?["todo"]?["id"]?.stringValue, "\(added.body?.jsonString ?? "")")

            let reader = OAuthDriver(http: relay.http, issuer: relay.issuer)
            var readOnly = try await reader.connect(appleID: "scopes@example.com", scope: "todos:read")
            #expect(reader.lastConsentPage.contains("See your to-dos and their times"))
            #expect(!reader.lastConsentPage.contains("Add, change"), "the page promised reading only")

            let challenge =
                #"Bearer error="insufficient_scope", scope="todos:read todos:write", "#
                + #"resource_metadata="\#(relay.issuer)/.well-known/oauth-protected-resource/mcp""#
            let writes: [(String, JSONValue)] = [
                ("add_todo", ["title": "sneaked in"]),
                ("update_todo", ["id": .string(id), "title": "changed"]),
                ("complete_todo", ["id": .string(id)]),
                ("snooze_todo", ["id": .string(id), "until": "2031-05-06T09:00"]),
                ("delete_todo", ["id": .string(id)]),
                // Issue 44: the batches and undo change to-dos too.
                ("add_todos", ["items": [["title": "sneaked in"]]]),
                ("complete_todos", ["ids": [.string(id)]]),
                ("snooze_todos", ["ids": [.string(id)], "until": "2031-05-06T09:00"]),
                ("delete_todos", ["ids": [.string(id)]]),
                ("undo", ["undo": "u1.AAAA"]),
                // Malformed arguments get the same answer: the scope is checked first.
                ("delete_todo", ["id": 5]),
            ]
            for (tool, arguments) in writes {
                let (reply, _) = try await mcp.tool(tool, arguments, token: readOnly.access)
                #expect(reply.status == 403, "\(tool): \(reply.body?.jsonString ?? "")")
                #expect(reply.headers["www-authenticate"] == challenge, "\(tool)")
                #expect(reply.body?["id"] == .int(1), "\(tool)")
                #expect(reply.body?["error"]?["data"]?["missingScopes"] == ["todos:write"], "\(tool)")
                #expect(reply.body?["result"] == nil, "\(tool)")
            }
            // Reading works, tools/list shows every tool, and nothing above changed the to-do.
            let (listed, list) = try await mcp.tool("list_todos", ["status": "all"], token: readOnly.access)
            #expect(listed.status == 200)
            #expect(list?["items"]?.arrayValue?.compactMap { $0["title"]?.stringValue } == ["keep me"])
            #expect(list?["items"]?.arrayValue?.first?["status"] == "pending", "\(list?.jsonString ?? "")")
            let (me, account) = try await mcp.tool("get_me", token: readOnly.access)
            #expect(me.status == 200)
            #expect(account?["today"] != nil)
            // ChatGPT's search and fetch are reads: "See your to-dos" is enough for them.
            let (searched, found) = try await mcp.tool("search", ["query": "keep"], token: readOnly.access)
            #expect(searched.status == 200)
            let foundID = found?["results"]?.arrayValue?.first?["id"]?.stringValue ?? ""
            #expect(!foundID.isEmpty, "\(found?.jsonString ?? "")")
            let (fetched, document) = try await mcp.tool("fetch", ["id": .string(foundID)], token: readOnly.access)
            #expect(fetched.status == 200)
            #expect(document?["title"] == "keep me", "\(document?.jsonString ?? "")")
            let tools = try await mcp.post("tools/list", token: readOnly.access)
            #expect(tools.body?["result"]?["tools"]?.arrayValue?.count == 14)

            // A 2025-03-26 batch with one write is refused whole: its read did not run either.
            let batch: JSONValue = [
                ["jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ["name": "get_me", "arguments": [:]]],
                [
                    "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": ["name": "add_todo", "arguments": ["title": "batched"]],
                ],
            ]
            let refusedBatch = try await mcp.send(batch, token: readOnly.access, version: nil)
            #expect(refusedBatch.status == 403)
            #expect(refusedBatch.headers["www-authenticate"] == challenge)

            // Refreshing cannot widen the grant; refreshing without a scope keeps it read-only.
            let widen = try await reader.refreshScope(readOnly, scope: "todos:read todos:write")
            #expect(widen.status == 400)
            #expect(widen.body?["error"] == "invalid_scope")
            readOnly = try await reader.refresh(readOnly)
            let (again, _) = try await mcp.tool("add_todo", ["title": "after refresh"], token: readOnly.access)
            #expect(again.status == 403)
            #expect(again.headers["www-authenticate"] == challenge)

            // The full token narrowed by a refresh to todos:read is refused the same way.
            let narrowed = try await owner.refresh(full, scope: "todos:read")
            let (narrowWrite, _) = try await mcp.tool("delete_todo", ["id": .string(id)], token: narrowed.access)
            #expect(narrowWrite.status == 403)
            #expect(narrowWrite.headers["www-authenticate"] == challenge)
            // Issue 37: a narrowed connection stays narrowed. Refreshed without a scope it keeps todos:read, and its
            // refresh token cannot ask for the grant's todos:write again.
            let kept = try await owner.refresh(narrowed)
            let (keptWrite, _) = try await mcp.tool("delete_todo", ["id": .string(id)], token: kept.access)
            #expect(keptWrite.status == 403)
            let rewiden = try await owner.refreshScope(kept, scope: "todos:read todos:write")
            #expect(rewiden.status == 400)
            #expect(rewiden.body?["error"] == "invalid_scope")

            // The connection is kept (a refusal is not a revocation), and the owner's data is intact.
            let (stillReads, _) = try await mcp.tool("get_me", token: readOnly.access)
            #expect(stillReads.status == 200)
            let (finalList, items) = try await mcp.tool("list_todos", ["status": "all"], token: readOnly.access)
            #expect(finalList.status == 200)
            #expect(items?["items"]?.arrayValue?.compactMap { $0["title"]?.stringValue } == ["keep me"])

            let metrics = try await relay.metricsText()
            #expect(
                metrics.contains(#"relay_mcp_tool_calls_total{tool="add_todo",outcome="INSUFFICIENT_SCOPE"} 2"#),
                "\(metrics)")
            await relay.stop()
        }
    }
}
