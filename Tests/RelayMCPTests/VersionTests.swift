import RelayJSON
import Testing

@testable import RelayMCP

/// Protocol versions, the version header, the era a request is served in, and the lifecycle methods.
@Suite struct VersionTests {
    @Test(arguments: ProtocolVersion.legacyVersions)
    func initializeEchoesEachSupportedVersion(version: ProtocolVersion) async throws {
        try await withServer(TestServer()) { server in
            let response = try await server.post(TestServer.initialize(version.rawValue, id: "init-1"))
            #expect(response.status == 200)
            let result = try #require(response.json?["result"])
            #expect(response.json?["id"] == "init-1")
            #expect(result["protocolVersion"] == .string(version.rawValue))
            #expect(result["capabilities"] == ["tools": ["listChanged": false]])
            #expect(result["serverInfo"]?["name"] == "test-relay")
            #expect(result["serverInfo"]?["version"] == "0.1.0")
            #expect(result["serverInfo"]?["title"] == (version == .v2025_03_26 ? nil : "Test Relay"))
            #expect(result["instructions"] == "Call get_me first.")
        }
    }

    @Test func initializeWithAnUnknownVersionOffersTheLatest() async throws {
        try await withServer(TestServer()) { server in
            for requested in ["2024-11-05", "2025-11-25", "banana"] {
                // A 2025 or unknown header is ignored on initialize: negotiation happens in the body.
                let response = try await server.post(
                    TestServer.initialize(requested), extra: [("MCP-Protocol-Version", requested)])
                #expect(response.status == 200)
                #expect(response.json?["result"]?["protocolVersion"] == "2025-11-25")
            }
            let missing = try await server.post(TestServer.request("initialize", params: [:]))
            #expect(missing.json?["error"]?["code"] == -32602)
        }
    }

    @Test func versionHeaderAbsentMeans2025_03_26AndUnsupportedIs400() async throws {
        try await withServer(TestServer()) { server in
            let list = TestServer.request("tools/list", id: 3)
            let absent = try await server.post(list)
            #expect(absent.status == 200)
            let firstTool = absent.json?["result"]?["tools"]?.arrayValue?.first
            #expect(firstTool?["title"] == nil)
            #expect(firstTool?["annotations"]?["title"] == "Echo")
            for version in ProtocolVersion.legacyVersions {
                let response = try await server.post(list, extra: [("MCP-Protocol-Version", version.rawValue)])
                #expect(response.status == 200)
                let tool = response.json?["result"]?["tools"]?.arrayValue?.first
                #expect((tool?["title"] == "Echo") == version.hasStructuredOutput)
                #expect((tool?["outputSchema"] != nil) == version.hasStructuredOutput)
                #expect(response.json?["result"]?["resultType"] == nil)
            }
            // A version the server does not serve: the 2026 error for it, naming both eras.
            for bad in ["2024-11-05", "", "latest", "2099-01-01"] {
                let response = try await server.post(list, extra: [("MCP-Protocol-Version", bad)])
                #expect(response.status == 400, "\(bad)")
                let error = response.json?["error"]
                #expect(error?["code"] == -32022)
                #expect(error?["data"]?["supported"] == ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
                #expect(error?["data"]?["requested"] == .string(bad))
                #expect(response.json?["id"] == 3)
            }
            // The 2026 header names the modern era, whose requests need their _meta.
            let modernHeaderOnly = try await server.post(list, extra: [("MCP-Protocol-Version", "2026-07-28")])
            #expect(modernHeaderOnly.status == 400)
            #expect(modernHeaderOnly.json?["error"]?["code"] == -32602)
        }
    }

    @Test func aProbeWithoutTheModernMetaStillGetsTheFallback400() async throws {
        try await withServer(TestServer()) { server in
            // Not a modern request (no _meta, no 2026 header): method not found, but a 400 so that a
            // dual-era client falls back to initialize.
            let bare = try await server.post(TestServer.request("server/discover", id: 5))
            #expect(bare.status == 400)
            #expect(bare.json?["error"]?["code"] == -32601)
            #expect(bare.json?["error"]?["data"]?["supported"]?.arrayValue?.count == 4)
            // The same probe as a 2026 client sends it is served.
            let modern = try await server.postModern("server/discover", id: 0)
            #expect(modern.status == 200)
            #expect(
                modern.json?["result"]?["supportedVersions"] == [
                    "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28",
                ])
        }
    }

    /// The conformance suite's `sep-2575-server-unsupported-version-error`: every version a -32022
    /// names is one `server/discover` lists.
    @Test func unsupportedVersionNamesOnlyWhatDiscoverLists() async throws {
        try await withServer(TestServer()) { server in
            let discover = try await server.postModern("server/discover", id: 1)
            let listed = try #require(discover.json?["result"]?["supportedVersions"]?.arrayValue)
            let refused = try await server.post(
                TestServer.modern("server/discover", id: 2, version: "v999.0.0"),
                extra: TestServer.modernHeaders("server/discover", version: "v999.0.0"))
            #expect(refused.status == 400)
            #expect(refused.json?["error"]?["code"] == -32022)
            #expect(refused.json?["error"]?["data"]?["requested"] == "v999.0.0")
            let supported = try #require(refused.json?["error"]?["data"]?["supported"]?.arrayValue)
            #expect(!supported.isEmpty && supported.allSatisfy(listed.contains))
        }
    }

    /// `initialize` under the 2026-07-28 header is a method that revision does not have: 404 with
    /// -32601 (`sep-2575-http-server-method-not-found-404-initialize`), with or without the 2026
    /// `_meta`; the same handshake without the header (how the 1.x and 2.x Python SDK clients send it)
    /// still negotiates.
    @Test func initializeUnderTheModernHeaderIsNotFoundAndWithoutItStillNegotiates() async throws {
        try await withServer(TestServer()) { server in
            let modern = try await server.postModern("initialize", id: 7)
            #expect(modern.status == 404)
            #expect(modern.json?["error"]?["code"] == -32601)
            #expect(modern.json?["id"] == 7)
            let bare = try await server.post(
                TestServer.initialize("2025-11-25", id: 8), extra: TestServer.modernHeaders("initialize"))
            #expect(bare.status == 404)
            #expect(bare.json?["error"]?["code"] == -32601)
            let legacy = try await server.post(TestServer.initialize("2025-11-25", id: 9))
            #expect(legacy.status == 200)
            #expect(legacy.json?["result"]?["protocolVersion"] == "2025-11-25")
        }
    }

    @Test func eachRequestIsServedInTheEraItNames() async throws {
        try await withServer(TestServer()) { server in
            for _ in 0..<2 {
                let legacy = try await server.post(
                    TestServer.request("tools/list", params: ["_meta": ["progressToken": 7]]),
                    extra: [("MCP-Protocol-Version", "2025-11-25")])
                #expect(legacy.json?["result"]?["resultType"] == nil)
                #expect(legacy.json?["result"]?["tools"]?.arrayValue?.count == 5)
                let modern = try await server.postModern("tools/list")
                #expect(modern.json?["result"]?["resultType"] == "complete")
                #expect(modern.json?["result"]?["tools"] == legacy.json?["result"]?["tools"])
                let ping = try await server.post(TestServer.request("ping"))
                #expect(ping.json?["result"] == [:])
            }
        }
    }

    @Test func pingAnswersAnEmptyObject() async throws {
        try await withServer(TestServer()) { server in
            let response = try await server.post(TestServer.request("ping", id: "p"))
            #expect(response.status == 200)
            #expect(response.json == ["jsonrpc": "2.0", "id": "p", "result": [:]])
        }
    }

    @Test func requestsAreServedWithoutAnyHandshake() async throws {
        try await withServer(TestServer()) { server in
            // No initialize, no notifications/initialized: stateless, so a racing request is served.
            let list = try await server.post(
                TestServer.request("tools/list"), extra: [("MCP-Protocol-Version", "2025-11-25")])
            #expect(list.status == 200)
            let call = try await server.post(TestServer.call("echo", ["text": "hi"], id: 2))
            #expect(call.json?["result"]?["content"]?[0]?["type"] == "text")
        }
    }

    @Test func unknownMethodsInA2025SessionAreJSONRPCErrorsIn200() async throws {
        try await withServer(TestServer()) { server in
            for method in ["resources/list", "prompts/list", "logging/setLevel", "tasks/list"] {
                let response = try await server.post(
                    TestServer.request(method, id: 4), extra: [("MCP-Protocol-Version", "2025-06-18")])
                #expect(response.status == 200, "\(method)")
                #expect(response.json?["error"]?["code"] == -32601, "\(method)")
                #expect(response.json?["id"] == 4)
            }
        }
    }
}

extension JSONValue {
    /// Element `index` of an array (test shorthand).
    subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}
