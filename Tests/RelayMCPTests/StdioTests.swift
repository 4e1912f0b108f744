import RelayJSON
import Testing

@testable import RelayMCP

/// MCP over stdio through `MCPStdioServer` on real pipes: one message per line, both eras (decided by the
/// first request, as the Python SDK 2.x decides it), the same tools and prompts as HTTP, cancellation, the
/// session-ended result, and end of input.
@Suite struct StdioTests {
    static func initialize(_ version: String, id: JSONValue = 1) -> JSONValue { TestServer.initialize(version, id: id) }

    @Test func aLegacyProcessNegotiatesAndServesToolsAndPrompts() async throws {
        let harness = try StdioHarness()
        // Before initialize: ping works, the session methods do not, unknown methods are unknown.
        #expect(await harness.ask(TestServer.request("ping", id: 1))?["result"] == [:])
        #expect(await harness.ask(TestServer.request("tools/list", id: 2))?["error"]?["code"] == -32602)
        #expect(await harness.ask(TestServer.request("bogus", id: 3))?["error"]?["code"] == -32601)

        let initialized = try #require(await harness.ask(Self.initialize("2025-06-18", id: 4)))
        #expect(initialized["result"]?["protocolVersion"] == "2025-06-18")
        #expect(
            initialized["result"]?["capabilities"]
                == ["tools": ["listChanged": false], "prompts": ["listChanged": false]])
        harness.send(TestServer.notification("notifications/initialized"))
        let tools = try #require(await harness.ask(TestServer.request("tools/list", id: 5)))
        #expect(tools["result"]?["tools"]?.arrayValue?.count == 6)
        // 2025-06-18 has structuredContent; the principal is the process's own.
        let echo = try #require(await harness.ask(TestServer.call("echo", ["text": "hi", "times": 2], id: 6)))
        #expect(echo["result"]?["structuredContent"] == ["echo": "hi hi", "user": "alice"])
        let prompt = try #require(
            await harness.ask(
                TestServer.request("prompts/get", id: 7, params: ["name": "greet", "arguments": ["name": "Al"]])))
        #expect(prompt["result"]?["messages"]?.arrayValue?.first?["content"]?["text"] == "Say hello to Al.")
        let missing = try #require(
            await harness.ask(TestServer.request("prompts/get", id: 8, params: ["name": "greet"])))
        #expect(missing["error"]?["code"] == -32602)
        // The session-ended signal (a 401 over HTTP) is the configured result here.
        let ended = try #require(await harness.ask(TestServer.call("fail", ["mode": "session"], id: 9)))
        #expect(ended["result"]?["isError"] == true)
        #expect(ended["result"]?["structuredContent"]?["error"]?["code"] == "NOT_SIGNED_IN")
        // A request carrying the 2026 _meta in a legacy process is refused.
        let modern = try #require(await harness.ask(TestServer.modern("tools/list", id: 10)))
        #expect(modern["error"]?["code"] == -32600)
        await harness.finish()
    }

    @Test func aModernProcessChecksEveryRequestsMeta() async throws {
        let harness = try StdioHarness()
        let discover = try #require(await harness.ask(TestServer.modern("server/discover", id: "d")))
        #expect(discover["result"]?["supportedVersions"] == ["2026-07-28"])
        #expect(
            discover["result"]?["capabilities"] == ["tools": ["listChanged": false], "prompts": ["listChanged": false]])
        #expect(discover["result"]?["resultType"] == "complete")
        let list = try #require(await harness.ask(TestServer.modern("prompts/list", id: 2)))
        #expect(list["result"]?["cacheScope"] == "public")
        #expect(list["result"]?["prompts"]?.arrayValue?.first?["title"] == "Greet")
        let call = try #require(
            await harness.ask(
                TestServer.modern("tools/call", id: 3, params: ["name": "echo", "arguments": ["text": "x"]])))
        #expect(call["result"]?["isError"] == false)
        #expect(call["result"]?["resultType"] == "complete")
        // No _meta, a bad version, a removed method, initialize: each refused with its modern code.
        #expect(await harness.ask(TestServer.request("tools/list", id: 4))?["error"]?["code"] == -32602)
        #expect(
            await harness.ask(TestServer.modern("tools/list", id: 5, version: "2099-01-01"))?["error"]?["code"]
                == -32022)
        #expect(await harness.ask(TestServer.modern("ping", id: 6))?["error"]?["code"] == -32601)
        let initialize = try #require(await harness.ask(Self.initialize("2025-11-25", id: 7)))
        #expect(initialize["error"]?["code"] == -32022)
        #expect(initialize["error"]?["data"]?["supported"] == ["2026-07-28"])
        #expect(
            await harness.ask(TestServer.modern("prompts/get", id: 8, params: ["name": "nope"]))?["error"]?["code"]
                == -32602)
        // subscriptions/listen: acknowledged, then ended at once, as two lines.
        harness.send(
            TestServer.modern("subscriptions/listen", id: 9, params: ["notifications": ["toolsListChanged": true]]))
        #expect(await harness.line()?["method"] == "notifications/subscriptions/acknowledged")
        #expect(await harness.line()?["id"] == 9)
        await harness.finish()
    }

    @Test func malformedLinesGetErrorsAndTheProcessGoesOn() async throws {
        let harness = try StdioHarness(maxBodyBytes: 1024)
        #expect(await harness.ask("not an object")?["error"]?["code"] == -32600)
        harness.send("{not json")
        let error = try #require(await harness.line())
        #expect(error["error"]?["code"] == -32700)
        #expect(error["id"] == .null)
        harness.send(#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#)
        #expect(await harness.line()?["error"]?["code"] == -32600)
        harness.send(String(repeating: "x", count: 5000))
        #expect(await harness.line()?["error"]?["code"] == -32600)
        // A batch outside a 2025-03-26 session is refused; blank lines are skipped.
        harness.send("   ")
        harness.send(#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#)
        #expect(await harness.line()?["error"]?["code"] == -32600)
        #expect(await harness.ask(Self.initialize("2025-11-25", id: 3))?["result"]?["protocolVersion"] == "2025-11-25")
        await harness.finish()
    }

    @Test func a2025_03_26ProcessAnswersBatches() async throws {
        let harness = try StdioHarness()
        #expect(await harness.ask(Self.initialize("2025-03-26"))?["result"]?["protocolVersion"] == "2025-03-26")
        harness.send(
            .array([
                TestServer.request("ping", id: 2), TestServer.call("echo", ["text": "b"], id: 3),
                TestServer.notification("notifications/initialized"),
            ]))
        let batch = try #require(await harness.line()?.arrayValue)
        #expect(batch.map { $0["id"] } == [2, 3])
        #expect(batch.last?["result"]?["content"]?.arrayValue?.first?["text"] == #"{"echo":"b","user":"alice"}"#)
        await harness.finish()
    }

    @Test func requestsRunConcurrentlyAndACancelledOneSaysNothingMore() async throws {
        let harness = try StdioHarness()
        _ = await harness.ask(Self.initialize("2025-11-25"))
        harness.send(TestServer.call("wait", ["ms": 30_000], id: "slow"))
        // A quick request is not held up by the slow one.
        #expect(await harness.ask(TestServer.request("ping", id: "quick"))?["id"] == "quick")
        harness.send(["jsonrpc": "2.0", "method": "notifications/cancelled", "params": ["requestId": "slow"]])
        harness.send(TestServer.call("wait", ["ms": 1], id: "next"))
        #expect(await harness.line()?["id"] == "next")
        // Nothing ever comes for the cancelled request.
        #expect(await harness.line(timeout: .milliseconds(500)) == nil)
        // An id still in use is refused rather than shadowing the running request.
        harness.send(TestServer.call("wait", ["ms": 2000], id: 77))
        #expect(await harness.ask(TestServer.call("wait", ["ms": 1], id: 77))?["error"]?["code"] == -32600)
        #expect(await harness.line()?["result"]?["content"]?.arrayValue?.first?["text"] == "waited")
        await harness.finish()
    }

    @Test func endOfInputLetsRunningRequestsFinishThenStops() async throws {
        // A drain allowance of seconds, not the harness's 300 ms: on a loaded machine the 50 ms call may not
        // even have started within 300 ms, and the test is about what the allowance does, not its length.
        let harness = try StdioHarness(drainTimeout: .seconds(30))
        _ = await harness.ask(Self.initialize("2025-11-25"))
        harness.send(TestServer.call("wait", ["ms": 50], id: 1))
        harness.send(TestServer.call("wait", ["ms": 600_000], id: 2))
        let clock = ContinuousClock()
        let started = clock.now
        harness.closeInput()
        // The short call is answered; the hung one is cancelled after the drain allowance, and the server
        // closes its output.
        #expect(await harness.line()?["id"] == 1)
        #expect(await harness.line(timeout: .seconds(90)) == nil)
        await harness.finish()
        #expect(clock.now - started < .seconds(90))
    }
}
