/// The curated list of known platforms' redirect URIs: the one data file of them. A redirect on
/// this list is *verified*: the consent page names the platform and its domain, because the code
/// can only go back to that platform's own callback. Each entry names the source that shows the
/// platform sending it; `docs/clients.md` has the row for each. Operators add entries with
/// `RELAY_OAUTH_REDIRECT_ALLOWLIST` (they never replace these).
///
/// Pattern syntax as `RedirectAllowlist`: `*` is exactly one non-empty path segment.
package struct KnownPlatform: Sendable, Equatable {
    /// The platform's name, as the consent page shows it.
    package var name: String
    /// The redirect URI pattern.
    package var pattern: String
    /// Where the callback was seen.
    package var source: String

    /// Whether anyone with an account on the platform can make a callback of this pattern (an
    /// `https` pattern with a `*` segment: a Copilot Studio connector, a ChatGPT connector, a Google
    /// Cloud project). The code goes back to the platform, but to whichever account owns that
    /// connector, so the platform's name vouches for the platform, never for the connector's owner
    /// (consent phishing with one's own connector, docs/threat-model.md).
    package var anyAccountMakesOne: Bool { pattern.hasPrefix("https://") && pattern.contains("*") }

    package static let defaults: [KnownPlatform] = [
        KnownPlatform(
            name: "Claude", pattern: "https://claude.ai/api/mcp/auth_callback",
            source: "claude.com/docs/connectors/building/authentication"),
        KnownPlatform(
            name: "Claude", pattern: "https://claude.com/api/mcp/auth_callback",
            source: "erp-mafia/accounted#77 (DCR from the claude.com host)"),
        KnownPlatform(
            name: "Claude (desktop app, code tab)", pattern: "claude://claude.ai/mcp-auth-callback/sdk",
            source: "anthropics/claude-code#93671, RevenueCat/ai-toolkit#58"),
        KnownPlatform(
            name: "ChatGPT", pattern: "https://chatgpt.com/connector_platform_oauth_redirect",
            source: "developers.openai.com/plugins/build/auth"),
        KnownPlatform(
            name: "ChatGPT", pattern: "https://chatgpt.com/connector/oauth/*",
            source: "developers.openai.com/plugins/build/auth; makeplane/plane-mcp-server#165"),
        KnownPlatform(
            name: "Cursor", pattern: "cursor://anysphere.cursor-mcp/oauth/callback",
            source: "cursor.com/docs/context/mcp"),
        KnownPlatform(
            name: "Cursor", pattern: "https://www.cursor.com/agents/mcp/oauth/callback",
            source: "cursor.com/docs/context/mcp"),
        KnownPlatform(
            name: "Visual Studio Code", pattern: "https://vscode.dev/redirect",
            source: "microsoft/vscode src/vs/base/common/oauth.ts fetchDynamicRegistration"),
        KnownPlatform(
            name: "Visual Studio Code Insiders", pattern: "https://insiders.vscode.dev/redirect",
            source: "microsoft/vscode src/vs/base/common/oauth.ts fetchDynamicRegistration"),
        KnownPlatform(
            name: "Microsoft Copilot Studio", pattern: "https://global.consent.azure-apim.net/redirect/*",
            source: "SmartBear/smartbear-mcp#463, Teamwork/mcp#67, pantalytics/odoo-mcp-pro#57, tableau/tableau-mcp#866"
        ),
        KnownPlatform(
            name: "Perplexity", pattern: "https://www.perplexity.ai/rest/connections/oauth_callback",
            source: "quoted in MCP servers' allowlists (shared/reference/clients-2026-12.md)"),
        KnownPlatform(
            name: "Perplexity Enterprise", pattern: "https://enterprise.perplexity.ai/rest/connections/oauth_callback",
            source: "quoted in MCP servers' allowlists (shared/reference/clients-2026-12.md)"),
        KnownPlatform(
            name: "Mistral Le Chat", pattern: "https://callback.mistral.ai/v1/integrations_auth/oauth2_callback",
            source: "seen in production by an MCP server (shared/reference/clients-2026-12.md)"),
        KnownPlatform(
            name: "Mistral Le Chat", pattern: "https://chat.mistral.ai/mcp/callback",
            source: "other MCP servers' allowlists (unconfirmed)"),
        KnownPlatform(
            name: "Grok", pattern: "https://grok.com/connectors-oauth-exchange-code/",
            source: "erp-mafia/accounted#2158, dinglebear-ai/unraid#390, koala73/worldmonitor#8305"),
        KnownPlatform(
            name: "Google (Gemini app)", pattern: "https://oauth-redirect.googleusercontent.com/r/*",
            source: "a third-party observation (thin evidence; shared/reference/clients-2026-12.md)"),
        KnownPlatform(
            name: "Cline (VS Code)", pattern: "vscode://saoudrizwan.claude-dev/mcp-auth/callback/*",
            source: "cline/cline#8103"),
    ]
}
