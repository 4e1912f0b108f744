import RelayJSON
import RelayMCP
import RelayOAuth

/// What a successful tool call did, for the connections page's counts (issue 44): the action its
/// tool counts as and how many to-dos it changed. Only the tool's name and the `ok` flags of a
/// batch's per-item results are read; nothing of a to-do (title, content, record ID) is looked at
/// or kept.
enum ToolActivity {
    /// The action and count of a successful call of `tool`; nil for a tool that changes nothing.
    ///
    /// A batch tool's result is `{"results": [{"id": …, "ok": true} | {"ok": false, "error": {…}}],
    /// "undo": …}`: it counts the items with `"ok": true` (none: nothing to count). Any other write
    /// counts one.
    static func of(tool: String, result: ToolResult) -> (action: ConnectionAction, count: Int)? {
        guard let action = ConnectionAction(tool: tool) else { return nil }
        guard case .array(let items)? = result.structuredContent?["results"] else { return (action, 1) }
        let succeeded = items.filter { $0["ok"]?.boolValue == true }.count
        return succeeded > 0 ? (action, succeeded) : nil
    }
}
