/// Which redirect URIs a client may register or publish (`RELAY_OAUTH_REGISTRATION`).
package enum RegistrationMode: String, Sendable, Equatable, CaseIterable {
    /// The default: any `https` redirect, loopback on any port (RFC 8252 §7.3) or a private-use
    /// scheme (RFC 8252 §7.1), as most MCP authorization servers do. Redirects on the list are
    /// shown as verified; every other one as self-registered, the consent page leading with where
    /// the person will be sent (`ClientIdentity`).
    case open
    /// Only redirects on the list (known platforms, the operator's additions, loopback): the
    /// relay before issue 41.
    case allowlist
}
