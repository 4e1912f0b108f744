import RelayJSON
import RelayMCP
import RelayTodo
import Testing

/// The Today view as the relay serves it: a versioned `ui://` URI, the `_meta` that points `list_todos` at
/// it in every spelling hosts read (ext-apps `docs/migrate_from_openai_apps.md`), and a document that
/// loads nothing from anywhere and keeps nothing in the browser. The host side is tested in Chromium
/// (EndToEndTests/AppViewBrowserTests).
@Suite struct TodayViewTests {
    @Test func theURIIsVersionedByTheContent() {
        #expect(TodayView.uri.hasPrefix("ui://mustdo/today@"))
        let version = TodayView.uri.dropFirst("ui://mustdo/today@".count)
        #expect(version.count == 12 && version.allSatisfy(\.isHexDigit))
        #expect(TodayView.resource.uri == TodayView.uri)
        #expect(TodayView.resource.mimeType == "text/html;profile=mcp-app")
    }

    @Test func onlyListTodosPointsAtTheViewInEverySpelling() {
        let tools = TodoTools.definitions.map(TodayView.attach(to:))
        for tool in tools where tool.name != "list_todos" { #expect(tool.meta == nil, "\(tool.name)") }
        let list = tools.first { $0.name == "list_todos" }
        let uri = JSONValue.string(TodayView.uri)
        #expect(list?.meta?["ui"] == ["resourceUri": uri])
        #expect(list?.meta?["ui/resourceUri"] == uri)
        #expect(list?.meta?["openai/outputTemplate"] == uri)
        #expect(list?.meta?["openai/widgetAccessible"] == true)
    }

    @Test func theResultSaysWhetherTheConnectionMayWrite() {
        #expect(TodayView.connectionMeta(scopes: ["todos:read"]) == ["mustdo/connection": ["write": false]])
        #expect(
            TodayView.connectionMeta(scopes: ["todos:read", "todos:write"]) == ["mustdo/connection": ["write": true]])
    }

    @Test func theDocumentIsSelfContainedAndKeepsNothing() {
        let html = TodayView.resource.text
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        // No outside domain: the host's default CSP (no `_meta.ui.csp`) must be enough.
        for banned in ["http://", "https://", "//cdn", "src=", "<link", "@import", "url("] {
            #expect(!html.contains(banned), "\(banned)")
        }
        // No state in browser storage: hosts may sandbox the view without allow-same-origin.
        for banned in ["localStorage", "sessionStorage", "indexedDB", "document.cookie", "innerHTML"] {
            #expect(!html.contains(banned), "\(banned)")
        }
        #expect(TodayView.resource.meta?["ui"]?["csp"] == nil)
        for method in [
            "ui/initialize", "ui/notifications/initialized", "ui/notifications/tool-input",
            "ui/notifications/tool-result", "ui/notifications/size-changed", "ui/notifications/host-context-changed",
            "tools/call",
        ] {
            #expect(html.contains("\"\(method)\""), "\(method)")
        }
    }
}
