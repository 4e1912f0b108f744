import RelayJSON
import Testing

@testable import RelayMCP

/// Every tool declares its scopes; `tools/call` beyond the token's scopes is HTTP 403 with the
/// `insufficient_scope` challenge (RFC 6750 §3.1, MCP 2025-11-25 "Scope Challenge Handling") and a
/// JSON-RPC error, before the arguments are looked at and without running anything.
@Suite struct ScopeTests {
    static let version = [("MCP-Protocol-Version", "2025-11-25")]
    static let challenge =
        #"Bearer error="insufficient_scope", scope="todos:read todos:write", "#
        + #"resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp""#

    @Test(arguments: [true, false])
    func aReadOnlyTokenListsEveryToolAndCallsOnlyTheReadingOnes(immediate: Bool) async throws {
        let authenticator = FakeAuthenticator(immediate: immediate)
        try await withServer(TestServer(authenticator: authenticator)) { server in
            let token = FakeAuthenticator.readOnlyToken
            let list = try await server.post(TestServer.request("tools/list"), token: token, extra: Self.version)
            #expect(list.json?["result"]?["tools"]?.arrayValue?.count == 5)

            let echo = try await server.post(TestServer.call("echo", ["text": "hi"]), token: token, extra: Self.version)
            #expect(echo.status == 200)
            #expect(echo.json?["result"]?["structuredContent"]?["user"] == "reader")

            let refused = try await server.post(
                TestServer.call("schedule", ["title": "x"], id: 7), token: token, extra: Self.version)
            #expect(refused.status == 403)
            #expect(refused.header("WWW-Authenticate") == Self.challenge)
            #expect(refused.header("Content-Type") == "application/json")
            #expect(refused.header("Access-Control-Expose-Headers")?.contains("WWW-Authenticate") == true)
            #expect(refused.json?["id"] == 7)
            #expect(refused.json?["error"]?["code"] == .int(MCPError.Code.serverError))
            #expect(refused.json?["error"]?["data"]?["requiredScopes"] == ["todos:write"])
            #expect(refused.json?["error"]?["data"]?["missingScopes"] == ["todos:write"])
            #expect(refused.json?["error"]?["message"]?.stringValue?.contains("todos:write") == true)

            // Scope comes before the arguments: invalid arguments get the same 403, not a schema error.
            let invalid = try await server.post(
                TestServer.call("schedule", ["title": 5]), token: token, extra: Self.version)
            #expect(invalid.status == 403)
            #expect(invalid.header("WWW-Authenticate") == Self.challenge)
            // An unknown tool is still an ordinary JSON-RPC error (no scope to name).
            let unknown = try await server.post(TestServer.call("nope", [:]), token: token, extra: Self.version)
            #expect(unknown.status == 200)
            #expect(unknown.json?["error"]?["code"] == -32602)
            // The same call with a token holding both scopes runs.
            let allowed = try await server.post(TestServer.call("schedule", ["title": "x"]), extra: Self.version)
            #expect(allowed.status == 200)
            #expect(allowed.json?["result"]?["structuredContent"]?["accepted"]?["title"] == "x")

            #expect(server.records.map(\.outcome) == ["ok", "INSUFFICIENT_SCOPE", "INSUFFICIENT_SCOPE", "ok"])
            #expect(server.records.map(\.tool) == ["echo", "schedule", "schedule", "schedule"])
        }
    }

    /// The 2026-07-28 revision takes the same path: the same 403 and challenge, the read still served.
    @Test func theModernRevisionIsRefusedTheSameWay() async throws {
        try await withServer(TestServer()) { server in
            let token = FakeAuthenticator.readOnlyToken
            let refused = try await server.callModern("schedule", ["title": "x"], id: 9, token: token)
            #expect(refused.status == 403)
            #expect(refused.header("WWW-Authenticate") == Self.challenge)
            #expect(refused.json?["id"] == 9)
            #expect(refused.json?["error"]?["data"]?["missingScopes"] == ["todos:write"])
            let read = try await server.callModern("echo", ["text": "hi"], token: token)
            #expect(read.status == 200)
            #expect(read.json?["result"]?["structuredContent"]?["user"] == "reader")
            #expect(server.records.map(\.outcome) == ["INSUFFICIENT_SCOPE", "ok"])
        }
    }

    @Test func aWriteOnlyTokenIsAskedForBothScopesWhenItReads() async throws {
        let authenticator = FakeAuthenticator(
            tokens: ["writer-token": "writer"], scopes: ["writer": ["todos:write"]])
        try await withServer(TestServer(authenticator: authenticator)) { server in
            let refused = try await server.post(
                TestServer.call("echo", ["text": "hi"]), token: "writer-token", extra: Self.version)
            #expect(refused.status == 403)
            #expect(refused.header("WWW-Authenticate") == Self.challenge)
            #expect(refused.json?["error"]?["data"]?["missingScopes"] == ["todos:read"])
            let allowed = try await server.post(
                TestServer.call("schedule", ["title": "x"]), token: "writer-token", extra: Self.version)
            #expect(allowed.status == 200)
        }
    }

    /// Clients that want the reply as an event stream still get the 403 as JSON with the challenge.
    @Test func theRefusalIsJSONWhateverTheClientAccepts() async throws {
        try await withServer(TestServer()) { server in
            let refused = try await server.post(
                TestServer.call("schedule", ["title": "x"]), token: FakeAuthenticator.readOnlyToken,
                extra: Self.version + [("Accept", "text/event-stream")])
            #expect(refused.status == 403)
            #expect(refused.header("Content-Type") == "application/json")
            #expect(refused.header("WWW-Authenticate") == Self.challenge)
        }
    }

    /// A 2025-03-26 batch runs whole or not at all: one call beyond scope makes the whole POST a
    /// 403 with the challenge for every scope the batch needs, and none of its calls runs.
    @Test func aBatchWithACallBeyondScopeIsA403AndNothingInItRuns() async throws {
        try await withServer(TestServer()) { server in
            let token = FakeAuthenticator.readOnlyToken
            let batch: JSONValue = [
                TestServer.call("echo", ["text": "first"], id: 1),
                TestServer.request("ping", id: 2),
                TestServer.call("schedule", ["title": "x"], id: 3),
                TestServer.call("nope", [:], id: 4),
            ]
            let refused = try await server.post(batch, token: token)
            #expect(refused.status == 403)
            #expect(refused.header("WWW-Authenticate") == Self.challenge)
            #expect(refused.json?["id"] == .null)
            #expect(refused.json?["error"]?["data"]?["requiredScopes"] == ["todos:read", "todos:write"])
            #expect(refused.json?["error"]?["data"]?["missingScopes"] == ["todos:write"])
            #expect(refused.json?["error"]?["message"]?.stringValue?.contains("Nothing in the batch was run") == true)
            #expect(server.records.isEmpty, "no tool of the refused batch may run: \(server.records)")

            // Within scope the same kind of batch runs as before.
            let reads: JSONValue = [
                TestServer.call("echo", ["text": "a"], id: 1), TestServer.call("noop.one", [:], id: 2),
            ]
            let answered = try await server.post(reads, token: token)
            #expect(answered.status == 200)
            #expect(answered.json?.arrayValue?.count == 2)
            #expect(server.records.map(\.outcome) == ["ok", "ok"])
        }
    }
}
