import RelayJSON
import Testing

@testable import RelayMCP

/// Registration refuses definitions that would misbehave at call time.
@Suite struct ToolRegistryTests {
    struct Defined: Tool {
        var definition: ToolDefinition

        func call(_ arguments: JSONObject, context: ToolContext<TestPrincipal>) async throws -> ToolResult { .text("") }
    }

    private func register(_ definitions: [ToolDefinition]) -> MCPError? {
        do {
            _ = try ToolRegistry<TestPrincipal>(definitions.map { Defined(definition: $0) })
            return nil
        } catch {
            return error
        }
    }

    @Test func namesMustFollowTheGuidanceAndBeUnique() {
        #expect(register([ToolDefinition(name: "get_me", description: "", requiredScopes: ["s"])]) == nil)
        #expect(register([ToolDefinition(name: "a.b-c_D9", description: "", requiredScopes: ["s"])]) == nil)
        for bad in ["", "has space", "slash/name", "é", String(repeating: "x", count: 129)] {
            #expect(register([ToolDefinition(name: bad, description: "", requiredScopes: ["s"])]) != nil, "\(bad)")
        }
        let twice = register([
            ToolDefinition(name: "dup", description: "", requiredScopes: ["s"]),
            ToolDefinition(name: "dup", description: "", requiredScopes: ["s"]),
        ])
        #expect(twice?.message.contains("twice") == true)
    }

    /// A tool that names no scope (or a malformed one) is never registered, so it can never be
    /// called without a scope check.
    @Test func everyToolMustDeclareWellFormedScopes() {
        #expect(register([ToolDefinition(name: "t", description: "", requiredScopes: ["todos:read"])]) == nil)
        #expect(register([ToolDefinition(name: "t", description: "", requiredScopes: ["a", "b:c"])]) == nil)
        for bad in [[], [""], ["has space"], ["quote\""], ["back\\slash"], ["é"], ["a", "a"]] {
            let error = register([ToolDefinition(name: "t", description: "", requiredScopes: bad)])
            #expect(error?.message.contains("requiredScopes") == true, "\(bad)")
        }
    }

    @Test func theRegistryReportsWhatEachToolNeeds() throws {
        let registry = try ToolRegistry<TestPrincipal>(SampleTools.all)
        #expect(registry.requiredScopes(of: "echo") == ["todos:read"])
        #expect(registry.requiredScopes(of: "schedule") == ["todos:write"])
        #expect(registry.requiredScopes(of: "missing") == nil)
        #expect(registry.declaredScopes == ["todos:read", "todos:write"])
    }

    @Test func schemasMustCompile() {
        let cases: [JSONValue] = [
            ["type": "string"],
            ["type": "object", "properties": ["a": ["$ref": "#/x"]]],
            ["type": "object", "properties": ["a": ["type": "str"]]],
            ["type": "object", "properties": ["a": ["type": "string", "pattern": "("]]],
            ["type": "object", "properties": ["a": ["minLength": -1]]],
            ["type": "object", "not": ["type": "object"]],
        ]
        for schema in cases {
            #expect(
                register([ToolDefinition(name: "t", description: "", requiredScopes: ["s"], inputSchema: schema)])
                    != nil,
                "\(schema.jsonString)")
        }
        let annotated: JSONValue = [
            "type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema",
            "properties": ["a": ["type": "string", "description": "x", "format": "date", "x-example": "A"]],
        ]
        #expect(
            register([ToolDefinition(name: "t", description: "", requiredScopes: ["s"], inputSchema: annotated)]) == nil
        )
        let badOutput = ToolDefinition(
            name: "t", description: "", requiredScopes: ["s"], outputSchema: ["type": "object", "allOf": 3])
        #expect(register([badOutput]) != nil)
    }

    @Test func parameterHeadersAreRefusedBecauseNothingWouldCheckThem() {
        let headed: JSONValue = [
            "type": "object",
            "properties": [
                "region": ["type": "string", "x-mcp-header": "Region"], "x-mcp-header": ["type": "string"],
            ],
        ]
        #expect(
            register([ToolDefinition(name: "t", description: "", requiredScopes: ["s"], inputSchema: headed)])?.message
                .contains(
                    "x-mcp-header") == true)
        let nested: JSONValue = [
            "type": "object",
            "properties": ["a": ["type": "object", "properties": ["b": ["type": "integer", "x-mcp-header": "B"]]]],
        ]
        #expect(
            register([ToolDefinition(name: "t", description: "", requiredScopes: ["s"], inputSchema: nested)]) != nil)
        // A property that is merely called so is no annotation.
        let named: JSONValue = ["type": "object", "properties": ["x-mcp-header": ["type": "string"]]]
        #expect(
            register([ToolDefinition(name: "t", description: "", requiredScopes: ["s"], inputSchema: named)]) == nil)
    }

    @Test func anEmptyRegistryListsNoToolsOnOnePage() throws {
        let registry = try ToolRegistry<TestPrincipal>([])
        let page = try #require(registry.page(cursor: nil, version: .latestLegacy))
        #expect(try JSONValue(parsing: page.bytes(id: .int(1)))["result"] == ["tools": []])
        #expect(registry.page(cursor: "page-1", version: .latestLegacy) == nil)
        // 2026-07-28: the same list with resultType and the cache hint (no server stamp: a registry
        // built alone has no server identity).
        let modern = try #require(registry.page(cursor: nil, version: .v2026_07_28))
        #expect(
            try JSONValue(parsing: modern.bytes(id: .int(1)))["result"]
                == ["tools": [], "resultType": "complete", "ttlMs": 3_600_000, "cacheScope": "public"])
    }
}
