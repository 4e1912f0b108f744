import RelayJSON
import Testing

@testable import RelayMCP

/// Resources in both eras through a real server: the capability and the MCP Apps extension in
/// `initialize` and `server/discover`, `resources/list` and `resources/read` of a `ui://` view
/// (ext-apps `specification/2026-01-26/apps.mdx`), the 2026 cache hints, the `Mcp-Name` check, and a
/// URI not served (the conformance suite's `sep-2164-resource-not-found`).
@Suite struct ResourceTests {
    static let view = Resource(
        uri: "ui://test/view@abc", name: "view", title: "View", description: "A view.",
        mimeType: Resource.appMimeType, text: "<!DOCTYPE html><p>hi</p>", meta: ["ui": ["prefersBorder": true]])
    static let extensions: JSONObject = ["io.modelcontextprotocol/ui": [:]]

    static func server() throws -> TestServer {
        try TestServer(resources: [view], extensions: extensions)
    }

    @Test func bothErasAdvertiseResourcesAndTheExtension() async throws {
        try await withServer(Self.server()) { server in
            let initialize = try await server.post(TestServer.initialize("2025-11-25"))
            let legacy = initialize.json?["result"]?["capabilities"]
            #expect(legacy?["resources"] == ["subscribe": false, "listChanged": false])
            #expect(legacy?["extensions"] == ["io.modelcontextprotocol/ui": [:]])
            let discover = try await server.postModern("server/discover")
            #expect(discover.json?["result"]?["capabilities"] == legacy)
        }
        // Without resources, neither the capability nor the methods exist.
        try await withServer(TestServer()) { server in
            let initialize = try await server.post(TestServer.initialize("2025-11-25"))
            #expect(initialize.json?["result"]?["capabilities"]?["resources"] == nil)
            let read = try await server.postModern(
                "resources/read", params: ["uri": "ui://test/view@abc"], extra: [("Mcp-Name", "ui://test/view@abc")])
            #expect(read.status == 404)
            #expect(read.json?["error"]?["code"] == -32601)
        }
    }

    @Test func aViewIsListedAndReadInBothEras() async throws {
        try await withServer(Self.server()) { server in
            let list = try await server.post(
                TestServer.request("resources/list"), extra: [("MCP-Protocol-Version", "2025-11-25")])
            #expect(
                list.json?["result"] == [
                    "resources": [
                        [
                            "uri": "ui://test/view@abc", "name": "view", "title": "View", "description": "A view.",
                            "mimeType": "text/html;profile=mcp-app", "size": 24,
                            "_meta": ["ui": ["prefersBorder": true]],
                        ]
                    ]
                ])
            let read = try await server.post(
                TestServer.request("resources/read", params: ["uri": "ui://test/view@abc"]),
                extra: [("MCP-Protocol-Version", "2025-06-18")])
            #expect(
                read.json?["result"] == [
                    "contents": [
                        [
                            "uri": "ui://test/view@abc", "mimeType": "text/html;profile=mcp-app",
                            "text": "<!DOCTYPE html><p>hi</p>", "_meta": ["ui": ["prefersBorder": true]],
                        ]
                    ]
                ])
            // 2026-07-28: the same contents, cacheable for everyone, stamped; Mcp-Name mirrors params.uri.
            let modern = try await server.postModern(
                "resources/read", params: ["uri": "ui://test/view@abc"], extra: [("Mcp-Name", "ui://test/view@abc")])
            #expect(modern.status == 200)
            let result = modern.json?["result"]
            #expect(result?["contents"] == read.json?["result"]?["contents"])
            #expect(result?["resultType"] == "complete")
            #expect(result?["cacheScope"] == "public")
            #expect(result?["ttlMs"] == 3_600_000)
            #expect(result?["_meta"]?["io.modelcontextprotocol/serverInfo"]?["name"] == "test-relay")
            let modernList = try await server.postModern("resources/list")
            #expect(modernList.json?["result"]?["cacheScope"] == "public")
            #expect(modernList.json?["result"]?["resources"]?.arrayValue?.count == 1)
        }
    }

    @Test func theNameHeaderMustMatchTheURI() async throws {
        try await withServer(Self.server()) { server in
            // postModern sends no Mcp-Name for a uri: missing, then wrong, both -32020 with 400.
            let missing = try await server.postModern("resources/read", params: ["uri": "ui://test/view@abc"])
            #expect(missing.status == 400)
            #expect(missing.json?["error"]?["code"] == -32020)
            let wrong = try await server.postModern(
                "resources/read", params: ["uri": "ui://test/view@abc"], extra: [("Mcp-Name", "ui://test/other")])
            #expect(wrong.status == 400)
            #expect(wrong.json?["error"]?["code"] == -32020)
        }
    }

    @Test func aURINotServedIsAnErrorNamingItNeverEmptyContents() async throws {
        let uri = "test://nonexistent-resource-for-conformance-testing"
        try await withServer(Self.server()) { server in
            let modern = try await server.postModern(
                "resources/read", params: ["uri": .string(uri)], extra: [("Mcp-Name", uri)])
            #expect(modern.status == 400)
            #expect(modern.json?["error"]?["code"] == -32602)
            #expect(modern.json?["error"]?["data"]?["uri"] == .string(uri))
            #expect(modern.json?["result"] == nil)
            let legacy = try await server.post(
                TestServer.request("resources/read", params: ["uri": .string(uri)]),
                extra: [("MCP-Protocol-Version", "2025-11-25")])
            #expect(legacy.status == 200)
            #expect(legacy.json?["error"]?["code"] == -32002)
            #expect(legacy.json?["error"]?["data"]?["uri"] == .string(uri))
            let noURI = try await server.post(
                TestServer.request("resources/read", params: [:]), extra: [("MCP-Protocol-Version", "2025-11-25")])
            #expect(noURI.json?["error"]?["code"] == -32602)
        }
    }

    @Test func aViewMustBeServedAsAnApp() {
        var wrong = Self.view
        wrong.mimeType = "text/html"
        #expect(throws: MCPError.self) { try TestServer(resources: [wrong]) }
        #expect(throws: MCPError.self) { try TestServer(resources: [Self.view, Self.view]) }
    }
}
