import RelayJSON
import Testing

@testable import RelayMCP

/// `tools/list` paging and `tools/call`: validation before the tool runs, tool failures, the 401 hook.
@Suite struct ToolCallTests {
    @Test func toolsListPagesWithOpaqueCursors() async throws {
        try await withServer(TestServer(pageSize: 2)) { server in
            let pages = try await TestServer.toolPages { page, cursor in
                try await server.post(
                    TestServer.request("tools/list", id: .int(page), params: cursor.map { ["cursor": $0] }),
                    extra: [("MCP-Protocol-Version", "2025-11-25")])
            }
            #expect(pages.count == 3)
            let names = TestServer.toolNames(pages)
            #expect(names == ["echo", "schedule", "fail", "noop.one", "noop-two"])
            for bad: JSONValue in ["page-0", "page-3", "page-01", "garbage", 2] {
                let response = try await server.post(TestServer.request("tools/list", params: ["cursor": bad]))
                #expect(response.status == 200)
                #expect(response.json?["error"]?["code"] == -32602, "\(bad.jsonString)")
            }
        }
    }

    @Test func toolsListSplicesAnyIDIntoThePreencodedBody() async throws {
        try await withServer(TestServer()) { server in
            for id: JSONValue in [0, -5, 9_007_199_254_740_991, "", "quote\"and\\slash", "ユニコード"] {
                let response = try await server.post(TestServer.request("tools/list", id: id))
                #expect(response.json?["id"] == id)
                #expect(response.json?["result"]?["tools"]?.arrayValue?.count == 5)
            }
        }
    }

    @Test func toolDefinitionsCarryTitleSchemasAndAnnotations() async throws {
        try await withServer(TestServer()) { server in
            let response = try await server.post(
                TestServer.request("tools/list"), extra: [("MCP-Protocol-Version", "2025-06-18")])
            let echo = try #require(response.json?["result"]?["tools"]?[0])
            #expect(echo["name"] == "echo")
            #expect(echo["title"] == "Echo")
            #expect(echo["description"] == "Repeats the text.")
            #expect(echo["inputSchema"]?["required"] == ["text"])
            #expect(echo["outputSchema"]?["type"] == "object")
            #expect(echo["annotations"] == ["readOnlyHint": true, "idempotentHint": true, "openWorldHint": false])
        }
    }

    @Test func callReturnsStructuredContentAndTheSameJSONAsText() async throws {
        try await withServer(TestServer()) { server in
            let response = try await server.post(
                TestServer.call("echo", ["text": "hi", "times": 3], id: 11),
                extra: [("MCP-Protocol-Version", "2025-11-25")])
            #expect(response.status == 200)
            let result = try #require(response.json?["result"])
            #expect(result["structuredContent"] == ["echo": "hi hi hi", "user": "alice"])
            #expect(result["isError"] == nil)
            let text = try #require(result["content"]?[0]?["text"]?.stringValue)
            #expect(try JSONValue(parsing: text) == result["structuredContent"])
            #expect(server.records.map(\.outcome) == ["ok"])
            #expect(server.records.first?.tool == "echo")
        }
    }

    @Test func structuredContentIsLeftOutFor2025_03_26() async throws {
        try await withServer(TestServer()) { server in
            let response = try await server.post(TestServer.call("echo", ["text": "hi"]))
            #expect(response.json?["result"]?["structuredContent"] == nil)
            #expect(response.json?["result"]?["content"]?[0]?["text"] == #"{"echo":"hi","user":"alice"}"#)
        }
    }

    @Test func unknownToolsAndMalformedParamsAreInvalidParams() async throws {
        try await withServer(TestServer()) { server in
            let cases: [JSONValue] = [
                TestServer.call("nope", [:]),
                TestServer.request("tools/call", params: [:]),
                TestServer.request("tools/call", params: ["name": 5]),
                TestServer.request("tools/call", params: ["name": "echo", "arguments": ["text"]]),
            ]
            for body in cases {
                let response = try await server.post(body)
                #expect(response.status == 200)
                #expect(response.json?["error"]?["code"] == -32602, "\(body.jsonString)")
            }
        }
    }

    @Test func argumentsAreValidatedBeforeTheToolRunsAndErrorsNameTheField() async throws {
        try await withServer(TestServer()) { server in
            let cases: [(tool: String, arguments: JSONValue, field: String?, mentions: String)] = [
                ("echo", [:], "text", "is required"),
                ("echo", ["text": ""], "text", "must not be empty"),
                ("echo", ["text": .string(String(repeating: "a", count: 21))], "text", "at most 20 characters"),
                ("echo", ["text": 5], "text", "must be a string, not an integer"),
                ("echo", ["text": "a", "times": 4], "times", "at most 3"),
                ("echo", ["text": "a", "times": 1.5], "times", "must be an integer"),
                ("echo", ["text": "a", "loud": true], "loud", "known arguments: text, times"),
                ("schedule", ["title": "t", "due": "tomorrow"], "due", "must match the pattern"),
                ("schedule", ["title": "t", "sound": "bell"], "sound", "one of: default, chime, marimba"),
                ("schedule", ["title": "t", "notes": "12345678901"], "notes", "at most 10"),
                (
                    "schedule", ["title": "t", "repeat": ["kind": "weekly", "interval": 100]], "repeat.interval",
                    "at most 99"
                ),
                ("schedule", ["title": "t", "repeat": ["interval": 2]], "repeat.kind", "is required"),
                (
                    "schedule", ["title": "t", "repeat": ["kind": "weekly", "weekdays": [1, 9]]], "repeat.weekdays[1]",
                    "at most 7"
                ),
                (
                    "schedule", ["title": "t", "repeat": ["kind": "weekly", "weekdays": [2, 2]]], "repeat.weekdays",
                    "must not repeat"
                ),
                (
                    "schedule", ["title": "t", "repeat": ["kind": "daily", "end": ["kind": "count", "count": 0]]],
                    "repeat.end.count", "at least 1"
                ),
                (
                    "schedule", ["title": "t", "repeat": ["kind": "daily", "end": ["kind": "sometimes"]]], "repeat.end",
                    "allowed forms"
                ),
                ("schedule", ["title": "t", "repeat": 3], "repeat", "must be an object or null"),
            ]
            for (index, item) in cases.enumerated() {
                let response = try await server.post(
                    TestServer.call(item.tool, item.arguments, id: .int(index)),
                    extra: [("MCP-Protocol-Version", "2025-11-25")])
                #expect(response.status == 200)
                let result = try #require(response.json?["result"], "\(item.arguments.jsonString)")
                #expect(result["isError"] == true, "\(item.arguments.jsonString)")
                let error = result["structuredContent"]?["error"]
                #expect(error?["code"] == "INVALID_ARGUMENT")
                #expect(error?["field"] == item.field.map { .string($0) }, "\(item.arguments.jsonString)")
                let message = error?["message"]?.stringValue ?? ""
                #expect(message.contains(item.mentions), "\(message)")
                if let field = item.field { #expect(message.contains("`\(field)`"), "\(message)") }
                #expect(result["content"]?[0]?["text"] == error?["message"])
            }
            #expect(server.records.allSatisfy { $0.outcome == "INVALID_ARGUMENT" })
            let valid: JSONValue = [
                "title": "t", "due": "2026-03-08T02:30", "notes": nil, "sound": "chime",
                "repeat": [
                    "kind": "weekly", "interval": 2, "weekdays": [2, 4], "end": ["kind": "count", "count": 10],
                ],
            ]
            let accepted = try await server.post(
                TestServer.call("schedule", valid), extra: [("MCP-Protocol-Version", "2025-11-25")])
            #expect(accepted.json?["result"]?["isError"] == nil)
            #expect(accepted.json?["result"]?["structuredContent"]?["accepted"] == valid)
        }
    }

    @Test func toolErrorsBecomeIsErrorResults() async throws {
        try await withServer(TestServer()) { server in
            let header = [("MCP-Protocol-Version", "2025-11-25")]
            let limited = try await server.post(TestServer.call("fail", ["mode": "tool"]), extra: header)
            #expect(limited.status == 200)
            #expect(limited.json?["result"]?["isError"] == true)
            #expect(
                limited.json?["result"]?["structuredContent"]?["error"] == [
                    "code": "RATE_LIMITED", "message": "Slow down.", "retryAfter": 30,
                ])
            #expect(limited.json?["result"]?["content"]?[0]?["text"] == "Slow down.")

            let crash = try await server.post(TestServer.call("fail", ["mode": "crash"]), extra: header)
            #expect(crash.json?["result"]?["structuredContent"]?["error"]?["code"] == "INTERNAL_ERROR")
            #expect(crash.json?["result"]?["content"]?[0]?["text"]?.stringValue?.contains("Boom") == false)

            let badOutput = try await server.post(TestServer.call("fail", ["mode": "badOutput"]), extra: header)
            #expect(badOutput.json?["result"]?["structuredContent"]?["error"]?["code"] == "INTERNAL_ERROR")

            let rpc = try await server.post(TestServer.call("fail", ["mode": "rpc"]), extra: header)
            #expect(rpc.json?["error"]?["code"] == -32602)

            #expect(server.reportedErrors.count == 2)
            #expect(server.reportedErrors.allSatisfy { $0.hasPrefix("fail: ") })
            #expect(
                server.records.map(\.outcome) == ["RATE_LIMITED", "INTERNAL_ERROR", "INTERNAL_ERROR", "JSONRPC_-32602"])
        }
    }

    @Test(arguments: [true, false])
    func sessionEndedBecomesA401WithTheChallenge(immediate: Bool) async throws {
        let authenticator = FakeAuthenticator(immediate: immediate)
        try await withServer(TestServer(authenticator: authenticator)) { server in
            let response = try await server.post(
                TestServer.call("fail", ["mode": "session"]), extra: [("MCP-Protocol-Version", "2025-11-25")])
            #expect(response.status == 401)
            #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer resource_metadata=") == true)
            #expect(response.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
            #expect(response.header("Access-Control-Expose-Headers")?.contains("WWW-Authenticate") == true)
            #expect(authenticator.sessionsEnded == ["alice"])
            #expect(server.records.map(\.outcome) == ["SESSION_ENDED"])
        }
    }
}
