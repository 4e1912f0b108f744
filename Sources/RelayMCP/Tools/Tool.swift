import RelayJSON

/// A tool the endpoint offers. `Principal` is whatever the authenticator returns for a request
/// (for the relay: the grant that lets a tool reach one person's CloudKit database).
///
/// Every tool declares the OAuth scopes a caller needs (`definition.requiredScopes`); the endpoint
/// runs it only for a principal that holds all of them, and answers anyone else with HTTP 403 and
/// the `insufficient_scope` challenge before the arguments are even looked at. The endpoint then
/// validates `arguments` against `definition.inputSchema` before `call` runs, so a
/// tool sees only arguments of the declared shape. A tool reports failures by throwing
/// `ToolError` (rendered as an `isError` result), or `ToolError.sessionEnded()` when the
/// person's upstream session is gone (rendered as HTTP 401 with the challenge).
package protocol Tool<Principal>: Sendable {
    /// Who the call is made for.
    associatedtype Principal: MCPPrincipal

    /// Name, title, description, schemas and annotations.
    var definition: ToolDefinition { get }

    /// Runs the tool with validated arguments.
    func call(_ arguments: JSONObject, context: ToolContext<Principal>) async throws -> ToolResult
}

/// What a tool knows about the call besides its arguments.
package struct ToolContext<Principal: Sendable>: Sendable {
    /// The authenticated caller.
    package var principal: Principal
    /// The protocol version the request was made with.
    package var protocolVersion: ProtocolVersion
    /// The JSON-RPC id of the `tools/call` request.
    package var requestID: JSONRPCID

    /// A context; the endpoint builds these, tests may too.
    package init(principal: Principal, protocolVersion: ProtocolVersion, requestID: JSONRPCID) {
        self.principal = principal
        self.protocolVersion = protocolVersion
        self.requestID = requestID
    }
}

/// How a tool presents itself in `tools/list`.
package struct ToolDefinition: Sendable {
    /// Unique name: 1–128 characters from `A–Z a–z 0–9 _ - .`.
    package var name: String
    /// Human-readable name (2025-06-18+; older revisions get it as `annotations.title`).
    package var title: String?
    /// Written for a model: when to call the tool and what it does.
    package var description: String
    /// The OAuth scopes a caller must hold, every one of them, for `tools/call` to run the tool
    /// (for the to-do tools: `todos:read` to read, `todos:write` to change anything). There is no
    /// default: a tool states what it needs, and `ToolRegistry` refuses one that states nothing,
    /// so no tool can be called without a scope check. Never shown in `tools/list`.
    package var requiredScopes: [String]
    /// JSON Schema of the arguments; root `"type": "object"`.
    package var inputSchema: JSONValue
    /// JSON Schema of `structuredContent` (2025-06-18+), if the tool declares one.
    package var outputSchema: JSONValue?
    /// Behaviour hints.
    package var annotations: ToolAnnotations
    /// The tool's `_meta` in `tools/list` (for a tool with an MCP Apps view: `ui.resourceUri` and its
    /// older spellings), nil for none. Never read by the endpoint itself.
    package var meta: JSONObject?

    /// A definition.
    package init(
        name: String,
        title: String? = nil,
        description: String,
        requiredScopes: [String],
        inputSchema: JSONValue = ["type": "object", "additionalProperties": false],
        outputSchema: JSONValue? = nil,
        annotations: ToolAnnotations = ToolAnnotations()
    ) {
        self.name = name
        self.title = title
        self.description = description
        self.requiredScopes = requiredScopes
        self.inputSchema = inputSchema
        self.outputSchema = outputSchema
        self.annotations = annotations
    }

    /// Whether `name` follows the 2025-11-25 tool-name guidance.
    package static func isValidName(_ name: String) -> Bool {
        (1...128).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                    true
                default: false
                }
            }
    }

    /// Whether `scope` is one RFC 6749 §3.3 scope token (1+ of `%x21 / %x23-5B / %x5D-7E`): it
    /// must fit inside the quoted `scope="…"` of a `WWW-Authenticate` challenge unchanged.
    package static func isValidScope(_ scope: String) -> Bool {
        !scope.isEmpty
            && scope.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    /// The tool object as `tools/list` shows it to a client speaking `version`.
    func json(for version: ProtocolVersion) -> JSONValue {
        var object: JSONObject = ["name": .string(name)]
        if version.hasStructuredOutput, let title { object["title"] = .string(title) }
        object["description"] = .string(description)
        object["inputSchema"] = inputSchema
        if version.hasStructuredOutput, let outputSchema { object["outputSchema"] = outputSchema }
        var annotations = annotations.json
        if !version.hasStructuredOutput, let title, annotations["title"] == nil {
            annotations["title"] = .string(title)
        }
        if annotations.count > 0 { object["annotations"] = .object(annotations) }
        if let meta { object["_meta"] = .object(meta) }
        return .object(object)
    }
}

/// Tool annotations (hints; clients treat them as untrusted). Nil leaves the spec default.
package struct ToolAnnotations: Sendable, Equatable {
    /// Display title (the top-level `title` wins where both exist).
    package var title: String?
    /// The tool does not change anything (default false).
    package var readOnlyHint: Bool?
    /// A change may delete or overwrite (default true; meaningful only when not read-only).
    package var destructiveHint: Bool?
    /// Calling again with the same arguments has no further effect (default false).
    package var idempotentHint: Bool?
    /// The tool reaches outside systems (default true).
    package var openWorldHint: Bool?

    /// Annotations.
    package init(
        title: String? = nil,
        readOnlyHint: Bool? = nil,
        destructiveHint: Bool? = nil,
        idempotentHint: Bool? = nil,
        openWorldHint: Bool? = nil
    ) {
        self.title = title
        self.readOnlyHint = readOnlyHint
        self.destructiveHint = destructiveHint
        self.idempotentHint = idempotentHint
        self.openWorldHint = openWorldHint
    }

    var json: JSONObject {
        var object = JSONObject()
        if let title { object["title"] = .string(title) }
        if let readOnlyHint { object["readOnlyHint"] = .bool(readOnlyHint) }
        if let destructiveHint { object["destructiveHint"] = .bool(destructiveHint) }
        if let idempotentHint { object["idempotentHint"] = .bool(idempotentHint) }
        if let openWorldHint { object["openWorldHint"] = .bool(openWorldHint) }
        return object
    }
}
