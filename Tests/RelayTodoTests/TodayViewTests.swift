import RelayJSON
import RelayMCP
import RelayTodo
import Testing

/// The views as the relay serves them (Today, and what was just written): versioned `ui://` URIs, the
/// `_meta` that points `list_todos` and the writes at them in every spelling hosts read (ext-apps
/// `docs/migrate_from_openai_apps.md`), and documents that load nothing from anywhere and keep nothing
/// in the browser. The host side is tested in Chromium (EndToEndTests/AppViewBrowserTests).
@Suite struct TodayViewTests {
    @Test func theURIIsVersionedByTheContent() {
        #expect(TodayView.uri.hasPrefix("ui://mustdo/today@"))
        let version = TodayView.uri.dropFirst("ui://mustdo/today@".count)
        #expect(version.count == 12 && version.allSatisfy(\.isHexDigit))
        #expect(TodayView.resource.uri == TodayView.uri)
        #expect(TodayView.resource.mimeType == "text/html;profile=mcp-app")
    }

    @Test func listTodosPointsAtTodayAndTheWritesAtWrittenInEverySpelling() {
        let tools = TodoTools.definitions.map(AppViews.attach(to:))
        let expected = [
            "list_todos": TodayView.uri, "add_todo": WrittenView.uri, "update_todo": WrittenView.uri,
            "complete_todo": WrittenView.uri, "snooze_todo": WrittenView.uri,
        ]
        for tool in tools {
            guard let uri = expected[tool.name].map(JSONValue.string) else {
                #expect(tool.meta == nil, "\(tool.name)")
                continue
            }
            #expect(tool.meta?["ui"] == ["resourceUri": uri], "\(tool.name)")
            #expect(tool.meta?["ui/resourceUri"] == uri, "\(tool.name)")
            #expect(tool.meta?["openai/outputTemplate"] == uri, "\(tool.name)")
            #expect(tool.meta?["openai/widgetAccessible"] == true, "\(tool.name)")
        }
        #expect(AppViews.resources.map(\.uri) == [TodayView.uri, WrittenView.uri])
        let version = WrittenView.uri.dropFirst("ui://mustdo/written@".count)
        #expect(WrittenView.uri.hasPrefix("ui://mustdo/written@"))
        #expect(version.count == 12 && version.allSatisfy(\.isHexDigit))
    }

    @Test func theResultSaysWhetherTheConnectionMayWrite() {
        #expect(AppViews.connectionMeta(scopes: ["todos:read"]) == ["mustdo/connection": ["write": false]])
        #expect(
            AppViews.connectionMeta(scopes: ["todos:read", "todos:write"]) == ["mustdo/connection": ["write": true]])
    }

    @Test(arguments: ["today", "written"])
    func theDocumentIsSelfContainedAndKeepsNothing(_ name: String) throws {
        let view = try #require(AppViews.resources.first { $0.name == name })
        let html = view.text
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(view.mimeType == "text/html;profile=mcp-app")
        // No outside domain: the host's default CSP (no `_meta.ui.csp`) must be enough.
        for banned in ["http://", "https://", "//cdn", "src=", "<link", "@import", "url("] {
            #expect(!html.contains(banned), "\(banned)")
        }
        // No state in browser storage: hosts may sandbox the view without allow-same-origin.
        for banned in ["localStorage", "sessionStorage", "indexedDB", "document.cookie", "innerHTML"] {
            #expect(!html.contains(banned), "\(banned)")
        }
        #expect(view.meta?["ui"]?["csp"] == nil)
        for method in [
            "ui/initialize", "ui/notifications/initialized", "ui/notifications/tool-input",
            "ui/notifications/tool-result", "ui/notifications/size-changed", "ui/notifications/host-context-changed",
            "tools/call",
        ] {
            #expect(html.contains("\"\(method)\""), "\(method)")
        }
    }
}
