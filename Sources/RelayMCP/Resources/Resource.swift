import RelayJSON

/// A fixed text resource the endpoint serves through `resources/list` and `resources/read`: for the
/// relay, the MCP Apps views (`ui://` HTML documents, ext-apps `specification/2026-01-26/apps.mdx`).
/// Its text is the same for every caller, so both answers are encoded once per protocol version and,
/// in 2026-07-28, marked cacheable and public (`server/utilities/caching.mdx`). Nothing per person may
/// ever go into one.
package struct Resource: Sendable {
    /// The resource's URI (`ui://…` for a view), unique on the endpoint.
    package var uri: String
    /// Programmatic name.
    package var name: String
    /// Display name (2025-06-18+).
    package var title: String?
    /// What it is, for a person or a host.
    package var description: String?
    /// The content's media type (`text/html;profile=mcp-app` for a view).
    package var mimeType: String
    /// The content.
    package var text: String
    /// `_meta` on both the content item and the `resources/list` entry (for a view: `ui.csp`,
    /// `ui.prefersBorder` and the `openai/*` twins); nil for none.
    package var meta: JSONObject?

    /// A resource.
    package init(
        uri: String, name: String, title: String? = nil, description: String? = nil, mimeType: String, text: String,
        meta: JSONObject? = nil
    ) {
        self.uri = uri
        self.name = name
        self.title = title
        self.description = description
        self.mimeType = mimeType
        self.text = text
        self.meta = meta
    }

    /// The `resources/list` entry for `version`.
    func listEntry(for version: ProtocolVersion) -> JSONValue {
        var object: JSONObject = ["uri": .string(uri), "name": .string(name)]
        if version.hasStructuredOutput, let title { object["title"] = .string(title) }
        if let description { object["description"] = .string(description) }
        object["mimeType"] = .string(mimeType)
        object["size"] = .int(text.utf8.count)
        if let meta { object["_meta"] = .object(meta) }
        return .object(object)
    }

    /// The `resources/read` result's `contents` member.
    var contents: JSONValue {
        var item: JSONObject = ["uri": .string(uri), "mimeType": .string(mimeType), "text": .string(text)]
        if let meta { item["_meta"] = .object(meta) }
        return [.object(item)]
    }
}
