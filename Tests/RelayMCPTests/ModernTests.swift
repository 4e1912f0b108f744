import RelayJSON
import Testing

@testable import RelayMCP

/// MCP 2026-07-28 through a real server: discovery, results with `resultType` and cache hints, the
/// shared tool path, the methods this revision removed, `subscriptions/listen`, and what the
/// transport says about notifications, responses, batches, GET and DELETE.
@Suite struct ModernTests {
    static let stamp: JSONValue = ["name": "test-relay", "title": "Test Relay", "version": "0.1.0"]

    @Test func discoverAnswersPerTheRevision() async throws {
        try await withServer(TestServer()) { server in
            let response = try await server.postModern("server/discover", id: "discover-1")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Mcp-Session-Id") == nil)
            #expect(response.json?["id"] == "discover-1")
            let expected: JSONValue = [
                "supportedVersions": ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
                "capabilities": ["tools": ["listChanged": false]],
                "instructions": "Call get_me first.",
                "resultType": "complete",
                "ttlMs": 3_600_000,
                "cacheScope": "public",
                "_meta": ["io.modelcontextprotocol/serverInfo": Self.stamp],
            ]
            #expect(response.json?["result"] == expected)
        }
    }

    @Test func toolsListPagesCarryResultTypeCacheHintsAndTheStamp() async throws {
        try await withServer(TestServer(pageSize: 2)) { server in
            let pages = try await TestServer.toolPages { page, cursor in
                try await server.postModern("tools/list", id: .int(page), params: cursor.map { ["cursor": $0] } ?? [:])
            }
            for result in pages {
                #expect(result["resultType"] == "complete")
                #expect(result["ttlMs"] == 3_600_000)
                #expect(result["cacheScope"] == "public")
                #expect(result["_meta"] == ["io.modelcontextprotocol/serverInfo": Self.stamp])
            }
            #expect(pages.count == 3)
            let names = TestServer.toolNames(pages)
            #expect(names == ["echo", "schedule", "fail", "noop.one", "noop-two"])
            let bad = try await server.postModern("tools/list", id: 9, params: ["cursor": "page-7"])
            #expect(bad.status == 400)
            #expect(bad.json?["error"]?["code"] == -32602)
            #expect(bad.json?["id"] == 9)
        }
    }

    @Test func toolsListShowsTheSameToolsAs2025_11_25() async throws {
        try await withServer(TestServer()) { server in
            let modern = try await server.postModern("tools/list")
            let legacy = try await server.post(
                TestServer.request("tools/list"), extra: [("MCP-Protocol-Version", "2025-11-25")])
            #expect(modern.json?["result"]?["tools"] == legacy.json?["result"]?["tools"])
            #expect(modern.json?["result"]?["tools"]?[0]?["outputSchema"] != nil)
        }
    }

    @Test func toolsCallSharesTheToolPathAndFramesTheResult() async throws {
        try await withServer(TestServer()) { server in
            let response = try await server.callModern("echo", ["text": "hi", "times": 2], id: 4)
            #expect(response.status == 200)
            let expected: JSONValue = [
                "content": [["type": "text", "text": #"{"echo":"hi hi","user":"alice"}"#]],
                "structuredContent": ["echo": "hi hi", "user": "alice"],
                "isError": false,
                "resultType": "complete",
                "_meta": ["io.modelcontextprotocol/serverInfo": Self.stamp],
            ]
            #expect(response.json?["result"] == expected)
            // The same argument validation as 2025: a tool execution error naming the field, in a 200.
            let invalid = try await server.callModern("echo", ["text": "hi", "times": 9], id: 5)
            #expect(invalid.status == 200)
            #expect(invalid.json?["result"]?["isError"] == true)
            #expect(invalid.json?["result"]?["structuredContent"]?["error"]?["field"] == "times")
            #expect(invalid.json?["result"]?["resultType"] == "complete")
            let failed = try await server.callModern("fail", ["mode": "tool"], id: 6)
            #expect(failed.json?["result"]?["structuredContent"]?["error"]?["code"] == "RATE_LIMITED")
            #expect(server.records.map(\.outcome) == ["ok", "INVALID_ARGUMENT", "RATE_LIMITED"])
        }
    }

    @Test func protocolErrorsTravelWithTheirStatus() async throws {
        try await withServer(TestServer()) { server in
            // Unknown tool, malformed arguments, a tool's own JSON-RPC error: -32602 in a 400.
            for (params, id) in [
                (["name": "nope"], 1), (["name": "echo", "arguments": [1, 2]], 2),
                (["name": "fail", "arguments": ["mode": "rpc"]], 3),
            ] as [(JSONObject, Int)] {
                let response = try await server.postModern("tools/call", id: .int(id), params: params)
                #expect(response.status == 400, "\(params)")
                #expect(response.header("Content-Type") == "application/json")
                #expect(response.json?["error"]?["code"] == -32602)
                #expect(response.json?["id"] == .int(id))
            }
            // A session that ended is still the authenticator's 401.
            let ended = try await server.callModern("fail", ["mode": "session"])
            #expect(ended.status == 401)
            #expect(server.authenticator.sessionsEnded == ["alice"])
        }
    }

    @Test func removedAndUnknownMethodsAre404MethodNotFound() async throws {
        try await withServer(TestServer()) { server in
            for method in ["ping", "logging/setLevel", "resources/list", "prompts/list", "tasks/list", "bogus"] {
                let response = try await server.postModern(method, id: 8)
                #expect(response.status == 404, "\(method)")
                #expect(response.json?["error"]?["code"] == -32601, "\(method)")
                #expect(response.json?["id"] == 8)
            }
        }
    }

    @Test func listenIsAcknowledgedWithNothingAndClosedGracefully() async throws {
        try await withServer(TestServer()) { server in
            let response = try await server.postModern(
                "subscriptions/listen", id: 12, params: ["notifications": ["toolsListChanged": true]])
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/event-stream")
            #expect(response.header("X-Accel-Buffering") == "no")
            let events = response.text.split(separator: "\n").filter { $0.hasPrefix("data: ") }
                .compactMap { try? JSONValue(parsing: String($0.dropFirst(6))) }
            #expect(events.count == 2)
            let acknowledged: JSONValue = [
                "jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                "params": ["_meta": ["io.modelcontextprotocol/subscriptionId": 12], "notifications": [:]],
            ]
            #expect(events.first == acknowledged)
            let closed: JSONValue = [
                "jsonrpc": "2.0", "id": 12,
                "result": [
                    "resultType": "complete",
                    "_meta": [
                        "io.modelcontextprotocol/subscriptionId": 12, "io.modelcontextprotocol/serverInfo": Self.stamp,
                    ],
                ],
            ]
            #expect(events.last == closed)
            // A listen response is a stream: a client that accepts only JSON cannot have one.
            let jsonOnly = try await server.postModern(
                "subscriptions/listen", params: ["notifications": [:]], accept: "application/json")
            #expect(jsonOnly.status == 406)
            let noFilter = try await server.postModern("subscriptions/listen", id: 13)
            #expect(noFilter.status == 400)
            #expect(noFilter.json?["error"]?["code"] == -32602)
        }
    }

    @Test func anEventStreamOnlyClientGetsItsResultsAsSSE() async throws {
        try await withServer(TestServer()) { server in
            let accept = "text/event-stream"
            let list = try await server.postModern("tools/list", accept: accept)
            #expect(list.header("Content-Type") == "text/event-stream")
            #expect(list.json?["result"]?["resultType"] == "complete")
            let call = try await server.postModern(
                "tools/call", params: ["name": "echo", "arguments": ["text": "x"]], accept: accept)
            #expect(call.header("Content-Type") == "text/event-stream")
            #expect(call.json?["result"]?["structuredContent"]?["echo"] == "x")
            // An error status always carries JSON.
            let missing = try await server.postModern("ping", accept: accept)
            #expect(missing.status == 404)
            #expect(missing.header("Content-Type") == "application/json")
        }
    }

    @Test func notificationsAre202ResponsesAndBatchesAre400() async throws {
        try await withServer(TestServer()) { server in
            let headers = TestServer.modernHeaders("notifications/cancelled")
            let notification: JSONValue = [
                "jsonrpc": "2.0", "method": "notifications/cancelled", "params": ["requestId": 1],
            ]
            let accepted = try await server.post(notification, extra: headers)
            #expect(accepted.status == 202)
            #expect(accepted.body.isEmpty)
            let unsupported = try await server.post(
                notification, extra: TestServer.modernHeaders("notifications/cancelled", version: "2099-01-01"))
            #expect(unsupported.status == 400)
            #expect(unsupported.json?["error"]?["code"] == -32022)
            let response = try await server.post(["jsonrpc": "2.0", "id": 1, "result": [:]], extra: headers)
            #expect(response.status == 400)
            #expect(response.json?["error"]?["code"] == -32600)
            let batch = try await server.post(
                [TestServer.modern("tools/list"), TestServer.modern("tools/list", id: 2)],
                extra: TestServer.modernHeaders("tools/list"))
            #expect(batch.status == 400)
            #expect(batch.json?["error"]?["code"] == -32600)
            // Even where batches exist (2025-03-26), a modern request must come alone.
            let mixed = try await server.post([TestServer.request("ping"), TestServer.modern("tools/list", id: 2)])
            #expect(mixed.status == 400)
            #expect(mixed.json?["error"]?["code"] == -32600)
        }
    }

    @Test func getAndDeleteAre405AndSessionHeadersAreIgnored() async throws {
        try await withServer(TestServer()) { server in
            for method in ["GET", "DELETE"] {
                let response = try await server.send(method, extra: TestServer.modernHeaders("tools/list"))
                #expect(response.status == 405, "\(method)")
                #expect(response.header("Allow") == "POST, OPTIONS")
            }
            let withSession = try await server.postModern(
                "tools/list", extra: [("Mcp-Session-Id", "abc"), ("Last-Event-ID", "7")])
            #expect(withSession.status == 200)
            #expect(withSession.header("Mcp-Session-Id") == nil)
        }
    }
}
