import RelayJSON

/// What `tools/list` shows for one tool. RelayMCP's `Tool` is built from this.
public struct ToolDefinition: Sendable {
    /// The tool name (`add_todo`).
    public let name: String
    /// A short human title.
    public let title: String
    /// When to call it and how its arguments work, written for a model.
    public let description: String
    /// JSON Schema of the arguments.
    public let inputSchema: JSONValue
    /// JSON Schema of `structuredContent` in a successful result.
    public let outputSchema: JSONValue
    /// Behaviour hints.
    public let annotations: ToolAnnotations

    /// A definition with every part given.
    public init(
        name: String, title: String, description: String, inputSchema: JSONValue, outputSchema: JSONValue,
        annotations: ToolAnnotations
    ) {
        self.name = name
        self.title = title
        self.description = description
        self.inputSchema = inputSchema
        self.outputSchema = outputSchema
        self.annotations = annotations
    }

    /// The `tools/list` entry: `name`, `title`, `description`, `inputSchema`, `outputSchema`, `annotations`.
    public var json: JSONValue {
        [
            "name": .string(name), "title": .string(title), "description": .string(description),
            "inputSchema": inputSchema, "outputSchema": outputSchema, "annotations": annotations.json,
        ]
    }
}

/// MCP tool annotations. `openWorldHint` is false for every to-do tool: they touch only the user's own list.
public struct ToolAnnotations: Sendable, Equatable {
    /// The tool changes nothing.
    public let readOnlyHint: Bool
    /// The tool may remove or irreversibly overwrite data.
    public let destructiveHint: Bool
    /// Repeating the same call has no further effect.
    public let idempotentHint: Bool
    /// The tool reaches beyond a closed set of data.
    public let openWorldHint: Bool

    /// Hints with every part given.
    public init(readOnlyHint: Bool, destructiveHint: Bool, idempotentHint: Bool, openWorldHint: Bool = false) {
        self.readOnlyHint = readOnlyHint
        self.destructiveHint = destructiveHint
        self.idempotentHint = idempotentHint
        self.openWorldHint = openWorldHint
    }

    /// The `annotations` object.
    public var json: JSONValue {
        [
            "readOnlyHint": .bool(readOnlyHint), "destructiveHint": .bool(destructiveHint),
            "idempotentHint": .bool(idempotentHint), "openWorldHint": .bool(openWorldHint),
        ]
    }
}
