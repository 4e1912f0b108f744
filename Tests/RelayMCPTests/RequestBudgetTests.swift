import RelayHTTP
import RelayJSON
import Testing

@testable import RelayMCP

/// Every JSON-RPC request counts against the connection's budget, `ping` included (issue 38): a
/// request costs a parse and an answer whatever its method. A `tools/call` counts once: in
/// `admitToolCall` when it runs, in `admitRequest` when it is refused before.
@Suite struct RequestBudgetTests {
    @Test func pingPastTheBudgetGets429WithRetryAfter() async throws {
        let authenticator = FakeAuthenticator(requestBudget: 2)
        try await withServer(TestServer(authenticator: authenticator)) { server in
            let version = [("MCP-Protocol-Version", "2025-11-25")]
            for id in 1...2 {
                let answer = try await server.post(TestServer.request("ping", id: .int(id)), extra: version)
                #expect(answer.status == 200)
            }
            let refused = try await server.post(TestServer.request("ping", id: 3), extra: version)
            #expect(refused.status == 429)
            #expect(refused.header("retry-after") == "9")
            #expect(refused.json?["id"] == 3)
            #expect(refused.json?["error"]?["code"] == .int(MCPError.Code.serverError))
            #expect(refused.json?["error"]?["data"]?["retryAfter"] == 9)
            let list = try await server.post(TestServer.request("tools/list", id: 4), extra: version)
            #expect(list.status == 429, "tools/list counts too")
            #expect(authenticator.requestsAsked == 4)
        }
    }

    @Test func everyRequestOfABatchCountsAndARefusedToolCallCountsOnce() async throws {
        let authenticator = FakeAuthenticator(requestBudget: 1)
        try await withServer(TestServer(authenticator: authenticator, maxBodyBytes: 65536)) { server in
            let batch: JSONValue = [
                TestServer.request("ping", id: 1), TestServer.call("echo", ["wrong": 1], id: 2),
                TestServer.request("ping", id: 3), TestServer.call("echo", ["text": "a"], id: 4),
            ]
            let response = try await server.post(batch)
            #expect(response.status == 200)
            let replies = try #require(response.json?.arrayValue)
            #expect(replies.count == 4)
            #expect(replies[0]["result"] != nil)
            #expect(replies[2]["error"]?["data"]?["retryAfter"] == 9, "the second ping is past the budget")
            #expect(replies[3]["result"]?["isError"] == nil, "an admitted call counts in admitToolCall")
            // ping, ping (past the budget of one), and the call refused for its arguments (counted
            // when it is checked, after the pings): three asked of admitRequest.
            #expect(authenticator.requestsAsked == 3)
            #expect(authenticator.admissionsAsked == 1)
        }
    }
}
