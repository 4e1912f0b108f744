import RelayCrypto
import RelayJSON
import RelayMCP

/// The MCP Apps side of the to-do tools (`io.modelcontextprotocol/ui`, ext-apps
/// `specification/2026-01-26/apps.mdx`): the views as `ui://` resources, the `_meta` that points each
/// view-backed tool at its view, and what a view-backed result tells the view about the connection.
/// Hosts without views ignore all of it and get the tools' usual `content`.
package enum AppViews {
    /// Every view, in `resources/list` order.
    package static let resources: [Resource] = [TodayView.resource, WrittenView.resource]

    /// The `_meta` key under which a view-backed result says what the connection may do.
    package static let connectionKey = "mustdo/connection"

    /// The capability entry a server with views declares (`capabilities.extensions`).
    package static let extensions: JSONObject = ["io.modelcontextprotocol/ui": [:]]

    /// The view that renders `tool`'s results, if any.
    package static func uri(for tool: String) -> String? {
        if TodayView.tools.contains(tool) { return TodayView.uri }
        if WrittenView.tools.contains(tool) { return WrittenView.uri }
        return nil
    }

    /// `definition` with its view's `_meta` when its tool has one: `ui.resourceUri`, the deprecated flat
    /// `ui/resourceUri` the official `registerAppTool` still writes, and `openai/outputTemplate` with
    /// `openai/widgetAccessible` (the view calls tools) for ChatGPT (the migration guide's mapping).
    package static func attach(to definition: ToolDefinition) -> ToolDefinition {
        guard let uri = uri(for: definition.name) else { return definition }
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

    /// A view's URI: `ui://mustdo/<name>@` and the first 12 hex digits of the HTML's SHA-256, so a host
    /// that caches templates picks up a new build (ext-apps `docs/overview.md`, "Versioning and caching").
    static func versionedURI(_ name: String, html: String) -> String {
        "ui://mustdo/\(name)@"
            + SHA256.hash(html).prefix(6).map { byte in
                let hex = String(byte, radix: 16)
                return byte < 16 ? "0" + hex : hex
            }.joined()
    }

    /// A view as a resource. No `csp`: a view loads nothing from anywhere, so the host's default policy
    /// applies; `openai/widget*` are the same facts for ChatGPT's older reader (ext-apps
    /// `docs/migrate_from_openai_apps.md`, "Resource Metadata").
    static func resource(uri: String, name: String, title: String, description: String, html: String) -> Resource {
        Resource(
            uri: uri, name: name, title: title, description: description, mimeType: Resource.appMimeType,
            text: html,
            meta: [
                "ui": ["prefersBorder": true], "openai/widgetPrefersBorder": true,
                "openai/widgetDescription": .string(description),
            ])
    }
}
