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
