import RelayJSON
import Testing

@testable import RelayMCP

/// JSON-RPC batches: allowed for 2025-03-26 only, never with initialize.
@Suite struct BatchTests {
    @Test func batchIsAnsweredInOrderFor2025_03_26() async throws {
        try await withServer(TestServer()) { server in
            let batch: JSONValue = [
                TestServer.notification("notifications/initialized"),
                TestServer.request("tools/list", id: 1),
                TestServer.request("ping", id: "two"),
                TestServer.call("echo", ["text": "hey", "times": 2], id: 3),
                ["jsonrpc": "2.0", "method": 7, "id": 4],
                TestServer.request("resources/list", id: 5),
            ]
            for extra in [[], [("MCP-Protocol-Version", "2025-03-26")]] {
                let response = try await server.post(batch, extra: extra)
                #expect(response.status == 200)
                let replies = try #require(response.json?.arrayValue)
                #expect(replies.map { $0["id"] } == [1, "two", 3, 4, 5])
                #expect(replies[0]["result"]?["tools"]?.arrayValue?.count == 5)
                #expect(replies[1]["result"] == [:])
                #expect(replies[2]["result"]?["content"]?[0]?["text"] == #"{"echo":"hey hey","user":"alice"}"#)
                #expect(replies[3]["error"]?["code"] == -32600)
                #expect(replies[4]["error"]?["code"] == -32601)
            }
        }
    }

    @Test func batchOfNotificationsAndResponsesGets202() async throws {
        try await withServer(TestServer()) { server in
            let batch: JSONValue = [
                TestServer.notification("notifications/initialized"),
                ["jsonrpc": "2.0", "id": 1, "result": [:]],
            ]
            let response = try await server.post(batch)
            #expect(response.status == 202)
            #expect(response.body.isEmpty)
        }
    }

    @Test func batchesAreRefusedFromLaterVersions() async throws {
        try await withServer(TestServer()) { server in
            let batch: JSONValue = [TestServer.request("ping", id: 1)]
            for version in ["2025-06-18", "2025-11-25"] {
                let response = try await server.post(batch, extra: [("MCP-Protocol-Version", version)])
                #expect(response.status == 400, "\(version)")
                #expect(response.json?["error"]?["code"] == -32600)
                #expect(response.json?["id"] == .null)
            }
            let unsupported = try await server.post(batch, extra: [("MCP-Protocol-Version", "2026-07-28")])
            #expect(unsupported.status == 400)
        }
    }

    @Test func initializeMustNotBeBatchedAndEmptyBatchesAreInvalid() async throws {
        try await withServer(TestServer()) { server in
            let withInitialize: JSONValue = [TestServer.initialize("2025-03-26"), TestServer.request("ping", id: 2)]
            let refused = try await server.post(withInitialize)
            #expect(refused.status == 400)
            #expect(refused.json?["error"]?["code"] == -32600)
            let empty = try await server.post([])
            #expect(empty.status == 400)
            #expect(empty.json?["error"]?["code"] == -32600)
        }
    }

    @Test func aBatchLongerThanTheCapIsRefusedWholeBeforeAnythingRuns() async throws {
        let authenticator = FakeAuthenticator()
        try await withServer(TestServer(authenticator: authenticator, maxBodyBytes: 65536)) { server in
            let cap = server.endpoint.configuration.maxBatchSize
            #expect(cap == 20)
            let tooMany = JSONValue.array((0...cap).map { TestServer.call("echo", ["text": "x"], id: .int($0)) })
            let refused = try await server.post(tooMany)
            #expect(refused.status == 400)
            #expect(refused.json?["error"]?["code"] == -32600)
            #expect(refused.json?["error"]?["data"]?["maxBatchSize"] == .int(cap))
            #expect(refused.json?["error"]?["data"]?["received"] == .int(cap + 1))
            #expect(refused.json?["id"] == .null)
            #expect(server.records.isEmpty, "nothing of a refused batch runs")
            #expect(authenticator.admissionsAsked == 0)
            let notifications = JSONValue.array(
                (0...cap).map { _ in TestServer.notification("notifications/initialized") })
            #expect(try await server.post(notifications).status == 400, "every message counts, not only calls")
            let full = JSONValue.array((1...cap).map { TestServer.call("echo", ["text": "x"], id: .int($0)) })
            let accepted = try await server.post(full)
            #expect(accepted.status == 200)
            #expect(accepted.json?.arrayValue?.count == cap)
        }
    }

    @Test func eachCallInABatchIsAdmittedOnItsOwn() async throws {
        let authenticator = FakeAuthenticator(toolCallBudget: 3)
        try await withServer(TestServer(authenticator: authenticator, maxBodyBytes: 65536)) { server in
            let batch: JSONValue = [
                TestServer.call("echo", ["text": "a"], id: 1), TestServer.request("ping", id: 2),
                TestServer.call("echo", ["text": "b"], id: 3), TestServer.call("echo", ["wrong": 1], id: 4),
                TestServer.call("echo", ["text": "c"], id: 5), TestServer.call("echo", ["text": "d"], id: 6),
                TestServer.call("echo", ["text": "e"], id: 7),
            ]
            let response = try await server.post(batch)
            #expect(response.status == 200)
            let replies = try #require(response.json?.arrayValue)
            #expect(replies.count == 7)
            // 2025-03-26 results carry no structuredContent: the outcomes are in the tool-call records.
            // ping is no tool call; an invalid call is refused before admission; three calls fit.
            #expect(
                server.records.map(\.outcome) == ["ok", "ok", "INVALID_ARGUMENT", "ok", "RATE_LIMITED", "RATE_LIMITED"])
            #expect(replies[5]["result"]?["isError"] == true)
            #expect(replies[5]["result"]?["content"]?[0]?["text"] == "Too many calls.")
            #expect(replies[4]["result"]?["isError"] == nil)
            #expect(authenticator.admissionsAsked == 5)
            // The budget is the same one a call sent alone draws from.
            let alone = try await server.post(
                TestServer.call("echo", ["text": "f"], id: 8), extra: [("MCP-Protocol-Version", "2025-11-25")])
            #expect(alone.json?["result"]?["structuredContent"]?["error"]?["code"] == "RATE_LIMITED")
            #expect(alone.json?["result"]?["structuredContent"]?["error"]?["retryAfter"] == 7)
        }
    }

    @Test func sessionEndedInsideABatchTurnsTheWholeAnswerInto401() async throws {
        try await withServer(TestServer()) { server in
            let batch: JSONValue = [
                TestServer.request("ping", id: 1), TestServer.call("fail", ["mode": "session"], id: 2),
            ]
            let response = try await server.post(batch)
            #expect(response.status == 401)
            #expect(response.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
        }
    }
}
