import RelayJSON

/// The result of `tools/call`: content blocks, optional `structuredContent`, `isError`.
package struct ToolResult: Sendable, Equatable {
    /// Content blocks (text for this relay).
    package var content: [ToolContent]
    /// Machine-readable result (2025-06-18+); matches the tool's `outputSchema` when it has one.
    package var structuredContent: JSONObject?
    /// Whether the tool failed (the model sees the failure and may retry).
    package var isError: Bool
    /// The result's own `_meta`: data for a view, not for the model (ext-apps `apps.mdx`, "Tool
    /// results"); nil for none. In 2026-07-28 the endpoint adds its stamp beside these members.
    package var meta: JSONObject?

    /// A result from its parts.
    package init(content: [ToolContent], structuredContent: JSONObject? = nil, isError: Bool = false) {
        self.content = content
        self.structuredContent = structuredContent
        self.isError = isError
    }

    /// A successful structured result. The text block carries the same JSON (for clients before
    /// 2025-06-18), unless `text` is given.
    package static func structured(_ object: JSONObject, text: String? = nil) -> ToolResult {
        // A structured result is usually past 512 bytes: room for 1,000 at once.
        let text = text ?? String(decoding: JSONValue.object(object).bytes(reservingCapacity: 1000), as: UTF8.self)
        return ToolResult(content: [.text(text)], structuredContent: object)
    }

    /// A successful text-only result.
    package static func text(_ text: String) -> ToolResult { ToolResult(content: [.text(text)]) }

    /// A failed result: the message in a text block and `structuredContent.error = {code, message, field?, …}`.
    package init(error: ToolError) {
        self.init(content: [.text(error.message)], structuredContent: ["error": .object(error.json)], isError: true)
    }

    /// The result object for a client speaking `version` (`structuredContent` only from 2025-06-18).
    /// The modern envelope (`resultType`, `_meta`) is added by the endpoint.
    package func json(for version: ProtocolVersion) -> JSONValue {
        var object: JSONObject = ["content": .array(content.map(\.json))]
        if version.hasStructuredOutput, let structuredContent {
            object["structuredContent"] = .object(structuredContent)
        }
        // 2026-07-28 results spell out `isError: false`, as the revision's examples and the Python SDK
        // do; earlier revisions leave the default out.
        if isError || version.isModern { object["isError"] = .bool(isError) }
        if let meta { object["_meta"] = .object(meta) }
        return .object(object)
    }
}

/// One content block of a tool result.
package enum ToolContent: Sendable, Equatable {
    /// `{"type": "text", "text": …}`
    case text(String)
    /// Any other block (image, resource link…), written as given.
    case block(JSONObject)

    /// The block as JSON.
    package var json: JSONValue {
        switch self {
        case .text(let text): ["type": "text", "text": .string(text)]
        case .block(let object): .object(object)
        }
    }
}
