import RelayJSON
import Testing

@testable import RelayMCP

/// Prompts through a real server in every revision: the capability, `prompts/list` as each revision shapes
/// it (pre-encoded, paged, cacheable in 2026), `prompts/get`, and each argument error as the spec says
/// (-32602: in a 200 in 2025, with 400 in 2026).
@Suite struct PromptTests {
    static let legacy = ["2025-03-26", "2025-06-18", "2025-11-25"]

    @Test func theCapabilityIsAdvertisedOnlyWithPrompts() async throws {
        try await withServer(TestServer(prompts: SamplePrompts.all)) { server in
            for version in Self.legacy {
                let response = try await server.post(TestServer.initialize(version))
                #expect(
                    response.json?["result"]?["capabilities"]
                        == ["tools": ["listChanged": false], "prompts": ["listChanged": false]], "\(version)")
            }
            let discover = try await server.postModern("server/discover")
            #expect(
                discover.json?["result"]?["capabilities"]
                    == ["tools": ["listChanged": false], "prompts": ["listChanged": false]])
        }
        try await withServer(TestServer()) { server in
            let discover = try await server.postModern("server/discover")
            #expect(discover.json?["result"]?["capabilities"] == ["tools": ["listChanged": false]])
            let list = try await server.post(
                TestServer.request("prompts/list"), extra: [("MCP-Protocol-Version", "2025-11-25")])
            #expect(list.json?["error"]?["code"] == -32601)
        }
    }

    @Test func theListTakesEachRevisionsShape() async throws {
        try await withServer(TestServer(prompts: SamplePrompts.all)) { server in
            let old = try await server.post(
                TestServer.request("prompts/list"), extra: [("MCP-Protocol-Version", "2025-03-26")])
            let greet2025 = try #require(old.json?["result"]?["prompts"]?.arrayValue?.first)
            // 2025-03-26 has no titles, neither on prompts nor on arguments.
            #expect(
                greet2025
                    == [
                        "name": "greet", "description": "Says hello to someone.",
                        "arguments": [
                            ["name": "name", "description": "Who to greet.", "required": true],
                            ["name": "style", "description": "plain (default) or loud.", "required": false],
                        ],
                    ])
            let names = old.json?["result"]?["prompts"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
            #expect(names == ["greet", "warm_up"])
            let newer = try await server.post(
                TestServer.request("prompts/list"), extra: [("MCP-Protocol-Version", "2025-06-18")])
            let greet = try #require(newer.json?["result"]?["prompts"]?.arrayValue?.first)
            #expect(greet["title"] == "Greet")
            #expect(greet["arguments"]?.arrayValue?.first?["title"] == "Name")
            #expect(newer.json?["result"]?["resultType"] == nil)

            let modern = try await server.postModern("prompts/list", id: 7)
            #expect(modern.status == 200)
            let result = try #require(modern.json?["result"])
            #expect(result["resultType"] == "complete")
            #expect(result["ttlMs"] == 3_600_000)
            #expect(result["cacheScope"] == "public")
            #expect(result["_meta"] == ["io.modelcontextprotocol/serverInfo": ModernTests.stamp])
            #expect(result["prompts"]?.arrayValue?.first == greet)
        }
    }

    @Test func theListIsPaged() async throws {
        try await withServer(TestServer(pageSize: 1, prompts: SamplePrompts.all)) { server in
            let first = try await server.postModern("prompts/list")
            let cursor = try #require(first.json?["result"]?["nextCursor"]?.stringValue)
            let second = try await server.postModern("prompts/list", id: 2, params: ["cursor": .string(cursor)])
            #expect(second.json?["result"]?["prompts"]?.arrayValue?.first?["name"] == "warm_up")
            #expect(second.json?["result"]?["nextCursor"] == nil)
            let bad = try await server.postModern("prompts/list", id: 3, params: ["cursor": "page-9"])
            #expect(bad.status == 400)
            #expect(bad.json?["error"]?["code"] == -32602)
        }
    }

    @Test func getRendersTheMessages() async throws {
        try await withServer(TestServer(prompts: SamplePrompts.all)) { server in
            let legacy = try await server.post(
                TestServer.request(
                    "prompts/get", params: ["name": "greet", "arguments": ["name": "Ann", "style": "loud"]]),
                extra: [("MCP-Protocol-Version", "2025-11-25")])
            #expect(
                legacy.json?["result"]
                    == [
                        "description": "A greeting",
                        "messages": [["role": "user", "content": ["type": "text", "text": "SAY HELLO TO ANN!"]]],
                    ])
            let modern = try await server.postModern(
                "prompts/get", params: ["name": "warm_up"])
            #expect(modern.status == 200)
            let result = try #require(modern.json?["result"])
            #expect(result["messages"]?.arrayValue?.map { $0["role"] } == ["user", "assistant"])
            #expect(result["resultType"] == "complete")
            // prompts/get is not among the cacheable results.
            #expect(result["ttlMs"] == nil)
            #expect(result["_meta"] == ["io.modelcontextprotocol/serverInfo": ModernTests.stamp])
            // A field left empty in a client's form is an argument not given.
            let empty = try await server.postModern(
                "prompts/get", id: 2, params: ["name": "greet", "arguments": ["name": "Bo", "style": ""]])
            #expect(empty.json?["result"]?["messages"]?.arrayValue?.first?["content"]?["text"] == "Say hello to Bo.")
        }
    }

    /// Every malformed `prompts/get` and the message that says what to fix.
    static let refusals: [(params: JSONObject, says: String)] = [
        (["name": "nope"], "Unknown prompt: nope."),
        ([:], "prompts/get needs params.name"),
        (["name": 3], "prompts/get needs params.name"),
        (["name": "greet"], "Missing required argument \"name\""),
        (["name": "greet", "arguments": [:]], "Missing required argument \"name\""),
        (["name": "greet", "arguments": ["name": "  "]], "Missing required argument \"name\""),
        (["name": "greet", "arguments": ["name": "Ann", "mood": "x"]], "Unknown argument \"mood\""),
        (["name": "greet", "arguments": ["name": 7]], "Argument \"name\" must be a string."),
        (["name": "greet", "arguments": "name=Ann"], "params.arguments must be an object"),
        (
            ["name": "greet", "arguments": ["name": "Ann", "style": "shouty"]],
            "Invalid argument \"style\": plain or loud."
        ),
        (["name": "warm_up", "arguments": ["x": "y"]], "(it takes none)"),
    ]

    @Test func argumentErrorsAreInvalidParamsInBothEras() async throws {
        try await withServer(TestServer(prompts: SamplePrompts.all)) { server in
            for (index, refusal) in Self.refusals.enumerated() {
                let legacy = try await server.post(
                    TestServer.request("prompts/get", id: .int(index), params: refusal.params),
                    extra: [("MCP-Protocol-Version", "2025-11-25")])
                #expect(legacy.status == 200, "\(refusal.params)")
                #expect(legacy.json?["error"]?["code"] == -32602, "\(refusal.params)")
                #expect(
                    legacy.json?["error"]?["message"]?.stringValue?.contains(refusal.says) == true, "\(legacy.text)")

                // A name that is not a string cannot be mirrored in Mcp-Name: that is the header check's -32020.
                guard refusal.params["name"] == nil || refusal.params["name"]?.stringValue != nil else { continue }
                var params = refusal.params
                params["_meta"] = .object(TestServer.modernMeta())
                let headers = TestServer.modernHeaders("prompts/get", name: refusal.params["name"]?.stringValue)
                let modern = try await server.post(
                    TestServer.request("prompts/get", id: .int(index), params: params), extra: headers)
                #expect(modern.status == 400, "\(refusal.params): \(modern.text)")
                #expect(modern.json?["error"]?["code"] == -32602, "\(refusal.params)")
            }
            // An extra member of params is no error: JSON-RPC params may carry more.
            let extra = try await server.post(
                TestServer.request("prompts/get", params: ["name": "greet", "arguments": ["name": "A"], "extra": 1]),
                extra: [("MCP-Protocol-Version", "2025-11-25")])
            #expect(extra.json?["result"] != nil)
            // 2026: Mcp-Name must mirror the prompt name, as for tools/call.
            let mismatched = try await server.send(
                body: TestServer.modern("prompts/get", params: ["name": "greet", "arguments": ["name": "A"]])
                    .jsonString,
                headers: [
                    ("Host", "127.0.0.1:\(server.port)"), ("Authorization", "Bearer \(TestServer.token)"),
                    ("Content-Type", "application/json"), ("Accept", "application/json"),
                ] + TestServer.modernHeaders("prompts/get", name: "warm_up"))
            #expect(mismatched.status == 400)
            #expect(mismatched.json?["error"]?["code"] == -32020)
        }
    }

    @Test func invalidDefinitionsAreRefusedAtStartup() throws {
        let bad = Prompt(PromptDefinition(name: "has space", description: "x")) { _ throws(PromptArgumentError) in
            .user("x")
        }
        #expect(throws: MCPError.self) { try TestServer(prompts: [bad]) }
        #expect(throws: MCPError.self) { try TestServer(prompts: [SamplePrompts.greet, SamplePrompts.greet]) }
        let repeated = Prompt(
            PromptDefinition(
                name: "twice", description: "x",
                arguments: [PromptArgument(name: "a", description: "x"), PromptArgument(name: "a", description: "y")])
        ) { _ throws(PromptArgumentError) in .user("x") }
        #expect(throws: MCPError.self) { try TestServer(prompts: [repeated]) }
    }
}
