/// What every authenticated caller of the endpoint carries: the OAuth scopes its request may use.
/// `tools/call` runs a tool only when the principal holds every scope in the tool's
/// `ToolDefinition.requiredScopes`; otherwise the answer is HTTP 403 with the authenticator's
/// `insufficient_scope` challenge (RFC 6750 §3.1, MCP 2025-11-25 "Scope Challenge Handling").
package protocol MCPPrincipal: Sendable {
    /// The scopes granted to this request (for the relay: the access token's scopes, never more
    /// than the grant's). Read on every `tools/call`, so it must not do I/O.
    var scopes: [String] { get }
}

extension MCPPrincipal {
    /// The scopes of `required` this principal lacks, in `required`'s order (empty: allowed).
    package func missingScopes(_ required: [String]) -> [String] {
        let held = scopes
        return required.filter { !held.contains($0) }
    }
}
