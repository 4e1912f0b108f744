import RelayJSON

/// The tools an endpoint offers, with their schemas compiled and every `tools/list` page
/// encoded once per protocol version (the modern ones with `resultType`, `ttlMs`, `cacheScope` and
/// the server stamp), so listing costs a cursor lookup and an id splice in either era.
package struct ToolRegistry<Principal: MCPPrincipal>: Sendable {
    struct Entry: Sendable {
        let tool: any Tool<Principal>
        /// `definition.requiredScopes`, kept here so a call does not rebuild the definition.
        let requiredScopes: [String]
        let input: JSONSchema
        let output: JSONSchema?
    }

    private let entries: [String: Entry]
    /// Tool names in listing order.
    package let names: [String]
    /// Tools per `tools/list` page.
    package let pageSize: Int
    private let pages: [ProtocolVersion: [PreencodedResult]]

    /// Registers `tools` in order. Throws when a name is invalid or repeated, a tool declares no
    /// scope (or a malformed one), or a schema cannot be compiled or asks for `x-mcp-header` (a
    /// programming error, reported at startup rather than on the first call).
    package init(_ tools: [any Tool<Principal>], pageSize: Int = 100) throws(MCPError) {
        try self.init(tools, pageSize: pageSize, envelope: ResultEnvelope(serverInfo: nil, cache: .staticPerDeployment))
    }

    /// Registers `tools`, finishing each modern page with `envelope` (the endpoint's server identity
    /// and cache hint).
    init(_ tools: [any Tool<Principal>], pageSize: Int, envelope: ResultEnvelope) throws(MCPError) {
        precondition(pageSize > 0, "pageSize must be positive")
        var entries: [String: Entry] = [:]
        var names: [String] = []
        for tool in tools {
            let definition = tool.definition
            guard ToolDefinition.isValidName(definition.name) else {
                throw .internalError("Tool name \"\(definition.name)\" is not 1–128 characters of A–Z a–z 0–9 _ - .")
            }
            guard entries[definition.name] == nil else {
                throw .internalError("Tool name \"\(definition.name)\" is registered twice.")
            }
            // A tool that names no scope would be callable by any token: refuse it here, once.
            guard !definition.requiredScopes.isEmpty,
                definition.requiredScopes.allSatisfy(ToolDefinition.isValidScope),
                Set(definition.requiredScopes).count == definition.requiredScopes.count
            else {
                throw .internalError(
                    "Tool \(definition.name) must declare the OAuth scopes it needs (requiredScopes), "
                        + "each a distinct scope token.")
            }
            guard definition.inputSchema["type"] == "object" else {
                throw .internalError("The inputSchema of \(definition.name) must have \"type\": \"object\".")
            }
            guard !Self.annotatesHeaders(definition.inputSchema) else {
                // 2026-07-28 clients mirror such a parameter into an `Mcp-Param-*` header that the server
                // MUST then check against the body; this endpoint does not, so it must not offer one.
                throw .internalError("Tool \(definition.name): x-mcp-header is not supported.")
            }
            let input: JSONSchema
            let output: JSONSchema?
            do {
                input = try JSONSchema(definition.inputSchema)
                output = try definition.outputSchema.map { schema throws(MCPError) in try JSONSchema(schema) }
            } catch {
                throw .internalError("Tool \(definition.name): \(error.message)")
            }
            entries[definition.name] = Entry(
                tool: tool, requiredScopes: definition.requiredScopes, input: input, output: output)
            names.append(definition.name)
        }
        self.entries = entries
        self.names = names
        self.pageSize = pageSize
        var pages: [ProtocolVersion: [PreencodedResult]] = [:]
        for version in ProtocolVersion.allCases {
            pages[version] = Self.encodePages(
                tools.map(\.definition), pageSize: pageSize, version: version, envelope: envelope)
        }
        self.pages = pages
    }

    private static func encodePages(
        _ definitions: [ToolDefinition], pageSize: Int, version: ProtocolVersion, envelope: ResultEnvelope
    ) -> [PreencodedResult] {
        let count = max(1, (definitions.count + pageSize - 1) / pageSize)
        return (0..<count).map { index in
            let slice = definitions.dropFirst(index * pageSize).prefix(pageSize)
            var result: JSONObject = ["tools": .array(slice.map { $0.json(for: version) })]
            if index + 1 < count { result["nextCursor"] = .string(cursor(forPage: index + 1)) }
            // Every page of the list carries the same cache hint (the spec requires one scope per list).
            return PreencodedResult(envelope.finish(result, version: version, cacheable: true))
        }
    }

    /// Whether a schema uses the 2026 `x-mcp-header` keyword anywhere (a property merely named so
    /// inside `properties` does not count).
    static func annotatesHeaders(_ schema: JSONValue, namesProperties: Bool = false) -> Bool {
        switch schema {
        case .object(let object):
            object.contains { key, value in
                (!namesProperties && key == "x-mcp-header")
                    || annotatesHeaders(value, namesProperties: !namesProperties && key == "properties")
            }
        case .array(let elements): elements.contains { annotatesHeaders($0) }
        default: false
        }
    }

    /// Cursors are opaque to clients; they name a page of this registry.
    private static func cursor(forPage page: Int) -> String { "page-\(page)" }

    /// The encoded `tools/list` page for `cursor` (nil: the first), or nil when the cursor is not one
    /// this registry issued.
    package func page(cursor: String?, version: ProtocolVersion) -> PreencodedResult? {
        guard let versionPages = pages[version] else { return nil }
        guard let cursor else { return versionPages[0] }
        guard cursor.hasPrefix("page-"), let index = Int(cursor.dropFirst(5)), index > 0, index < versionPages.count,
            Self.cursor(forPage: index) == cursor
        else { return nil }
        return versionPages[index]
    }

    func entry(named name: String) -> Entry? { entries[name] }

    /// Every scope some registered tool requires (the authorization server must offer them all).
    package var declaredScopes: Set<String> {
        Set(entries.values.flatMap(\.requiredScopes))
    }

    /// The scopes the tool named `name` requires, or nil for a name not registered.
    package func requiredScopes(of name: String) -> [String]? { entries[name]?.requiredScopes }
}
