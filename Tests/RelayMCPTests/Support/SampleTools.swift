import RelayJSON
import RelayMCP

/// Echoes its text, a given number of times.
struct EchoTool: Tool {
    var definition: ToolDefinition {
        ToolDefinition(
            name: "echo",
            title: "Echo",
            description: "Repeats the text.",
            requiredScopes: ["todos:read"],
            inputSchema: [
                "type": "object",
                "properties": [
                    "text": ["type": "string", "minLength": 1, "maxLength": 20],
                    "times": ["type": "integer", "minimum": 1, "maximum": 3],
                ],
                "required": ["text"],
                "additionalProperties": false,
            ],
            outputSchema: [
                "type": "object",
                "properties": ["echo": ["type": "string"], "user": ["type": "string"]],
                "required": ["echo", "user"],
            ],
            annotations: ToolAnnotations(readOnlyHint: true, idempotentHint: true, openWorldHint: false)
        )
    }

    func call(_ arguments: JSONObject, context: ToolContext<TestPrincipal>) async throws -> ToolResult {
        let text = arguments["text"]?.stringValue ?? ""
        let times = arguments["times"]?.intValue ?? 1
        return .structured([
            "echo": .string(Array(repeating: text, count: times).joined(separator: " ")),
            "user": .string(context.principal.user),
        ])
    }
}

/// A schema with the shapes the to-do tools use: nested objects, arrays, enums, patterns, nullables.
struct ScheduleTool: Tool {
    var definition: ToolDefinition {
        ToolDefinition(
            name: "schedule",
            title: "Schedule",
            description: "Checks a repeat rule.",
            requiredScopes: ["todos:write"],
            inputSchema: [
                "type": "object",
                "properties": [
                    "title": ["type": "string", "minLength": 1, "maxLength": 200],
                    "due": ["type": "string", "pattern": #"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2})?$"#],
                    "notes": ["type": ["string", "null"], "maxLength": 10],
                    "sound": ["type": "string", "enum": ["default", "chime", "marimba"]],
                    "repeat": [
                        "type": ["object", "null"],
                        "properties": [
                            "kind": ["type": "string", "enum": ["none", "daily", "weekly"]],
                            "interval": ["type": "integer", "minimum": 1, "maximum": 99],
                            "weekdays": [
                                "type": "array", "items": ["type": "integer", "minimum": 1, "maximum": 7],
                                "minItems": 1, "maxItems": 7, "uniqueItems": true,
                            ],
                            "end": [
                                "oneOf": [
                                    [
                                        "type": "object", "properties": ["kind": ["const": "never"]],
                                        "required": ["kind"],
                                        "additionalProperties": false,
                                    ],
                                    [
                                        "type": "object",
                                        "properties": [
                                            "kind": ["const": "count"],
                                            "count": ["type": "integer", "minimum": 1, "maximum": 999],
                                        ],
                                        "required": ["kind", "count"], "additionalProperties": false,
                                    ],
                                ]
                            ],
                        ],
                        "required": ["kind"],
                        "additionalProperties": false,
                    ],
                ],
                "required": ["title"],
                "additionalProperties": false,
            ],
            annotations: ToolAnnotations(readOnlyHint: false, destructiveHint: false)
        )
    }

    func call(_ arguments: JSONObject, context: ToolContext<TestPrincipal>) async throws -> ToolResult {
        .structured(["accepted": .object(arguments)])
    }
}

/// Fails the ways a tool can fail, picked by `mode`.
struct FailTool: Tool {
    struct Boom: Error {}

    var definition: ToolDefinition {
        ToolDefinition(
            name: "fail",
            description: "Fails on purpose.",
            requiredScopes: ["todos:read"],
            inputSchema: [
                "type": "object",
                "properties": ["mode": ["type": "string", "enum": ["tool", "crash", "session", "rpc", "badOutput"]]],
                "required": ["mode"],
            ],
            outputSchema: ["type": "object", "properties": ["ok": ["type": "boolean"]], "required": ["ok"]]
        )
    }

    func call(_ arguments: JSONObject, context: ToolContext<TestPrincipal>) async throws -> ToolResult {
        switch arguments["mode"]?.stringValue {
        case "tool":
            throw ToolError(code: "RATE_LIMITED", message: "Slow down.", details: ["retryAfter": 30])
        case "session": throw ToolError.sessionEnded()
        case "rpc": throw MCPError.invalidParams("Refused by the tool.")
        case "badOutput": return .structured(["ok": "yes"])
        default: throw Boom()
        }
    }
}

/// A tool without arguments, for paging.
struct NamedTool: Tool {
    var name: String

    var definition: ToolDefinition {
        ToolDefinition(name: name, description: "Does nothing.", requiredScopes: ["todos:read"])
    }

    func call(_ arguments: JSONObject, context: ToolContext<TestPrincipal>) async throws -> ToolResult {
        .text(name)
    }
}

enum SampleTools {
    static var all: [any Tool<TestPrincipal>] {
        [EchoTool(), ScheduleTool(), FailTool(), NamedTool(name: "noop.one"), NamedTool(name: "noop-two")]
    }
}
