import RelayCloudKit
import RelayCrypto
import RelayMCP
import RelayTodo

/// What the relay offers over MCP, in one place for both servers built from it: the hosted endpoint
/// (`buildApplication`) and the local stdio server (`mustdo-relay local`), so the two never drift apart.
/// A tool added for the hosted relay is added here and the local server has it too.
enum MCPFeatures {
    /// Every tool of the hosted relay, for any principal that carries a CloudKit session.
    /// `userIDKey` (the hosted relay's, the same on every instance) derives the key `list_todos` cursors are sealed
    /// with, so a cursor from one instance is good on another; nil (the local server) uses a key of the process.
    static func tools<Principal: TodoPrincipal>(
        client: CloudKitClient, userIDKey: SymmetricKey? = nil, for principal: Principal.Type = Principal.self
    ) -> [any Tool<Principal>] {
        let cursorKey = userIDKey.map {
            SymmetricKey(bytes: HMACSHA256.authenticationCode(for: "mustdo-relay list_todos cursor key v1", key: $0))
        }
        return TodoTools.tools(client: client, cursorKey: cursorKey, for: principal)
    }

    /// The ready-made prompts (English and Japanese).
    static let prompts: [Prompt] = MustDoPrompts.all

    /// The MCP Apps views (`ui://` resources) the tools point at.
    static let resources: [Resource] = AppViews.resources

    /// The extensions declared in the capabilities: MCP Apps (`io.modelcontextprotocol/ui`).
    static let extensions = AppViews.extensions
}
