import RelayCrypto
import RelayJSON
import RelayMCP

/// The MCP Apps side of the to-do tools (`io.modelcontextprotocol/ui`, ext-apps
/// `specification/2026-01-26/apps.mdx`): the Today view as a `ui://` resource, the `_meta` that points
/// `list_todos` at it, and what a view-backed result tells the view about the connection. Hosts without
/// views ignore all of it and get the tools' usual `content`.
package enum TodayView {
    /// The view's URI, versioned by its content (`@` and the first 12 hex digits of the HTML's SHA-256),
    /// so a host that caches templates picks up a new build (ext-apps `docs/overview.md`, "Versioning").
    package static let uri =
        "ui://mustdo/today@"
        + SHA256.hash(html).prefix(6).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()

    /// The tools whose results the view renders.
    package static let tools: Set<String> = [ListTodos.definition.name]

    /// The `_meta` key under which a view-backed result says what the connection may do.
    package static let connectionKey = "mustdo/connection"

    /// The capability entry a server with views declares (`capabilities.extensions`).
    package static let extensions: JSONObject = ["io.modelcontextprotocol/ui": [:]]

    /// The view as a resource. No `csp`: the view loads nothing from anywhere, so the host's default
    /// policy applies; `openai/widget*` are the same facts for ChatGPT's older reader (ext-apps
    /// `docs/migrate_from_openai_apps.md`, "Resource Metadata").
    package static let resource = Resource(
        uri: uri, name: "today", title: "Today",
        description: "The day's alarms with Done, 10 min, 1 h and Tomorrow buttons.",
        mimeType: Resource.appMimeType, text: html,
        meta: [
            "ui": ["prefersBorder": true],
            "openai/widgetPrefersBorder": true,
            "openai/widgetDescription": "The person's alarms for the day, with the alarm's four buttons.",
        ])

    /// `definition` with the view's `_meta` when its tool has the view: `ui.resourceUri`, the deprecated
    /// flat `ui/resourceUri` the official `registerAppTool` still writes, and `openai/outputTemplate`
    /// with `openai/widgetAccessible` (the view calls tools) for ChatGPT (the migration guide's mapping).
    package static func attach(to definition: ToolDefinition) -> ToolDefinition {
        guard tools.contains(definition.name) else { return definition }
        var definition = definition
        var meta = definition.meta ?? [:]
        meta["ui"] = ["resourceUri": .string(uri)]
        meta["ui/resourceUri"] = .string(uri)
        meta["openai/outputTemplate"] = .string(uri)
        meta["openai/widgetAccessible"] = true
        definition.meta = meta
        return definition
    }

    /// The result `_meta` a view-backed tool adds: whether the connection may write, so a read-only one
    /// shows no write buttons (the endpoint's 403 still holds if a view calls anyway).
    package static func connectionMeta(scopes: [String]) -> JSONObject {
        [connectionKey: ["write": .bool(scopes.contains(TodoScope.write))]]
    }
}
