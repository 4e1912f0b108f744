/// Who the consent page may say a client is, for the redirect URI this request returns to.
///
/// A name a client gives itself proves nothing: anyone can register "Claude" with their own
/// callback (consent phishing by a registered impostor, docs/threat-model.md). So a name is shown
/// as verified only when the code can go back nowhere but to whoever the name stands for:
/// - the redirect is a known platform's callback (`KnownPlatform`): the platform's name, never the
///   client's own;
/// - the client is a metadata document and the redirect is on the same site as the document's
///   URL, or on loopback (an app on the person's own device, which the document names): the
///   document's name and its domain (draft-ietf-oauth-client-id-metadata-document, security
///   considerations: show the client ID's host);
/// - the redirect is one the operator added: its host, vouched for by the operator.
/// Everything else is self-registered: the page leads with where the person will be sent.
enum ClientIdentity: Equatable {
    /// What vouches for a verified name.
    enum Voucher: Equatable {
        /// The curated list of known platforms' callbacks, or a client or entry the operator added.
        case list
        /// A client ID metadata document published on the redirect's site.
        case document
        /// The known platform's callback pattern, which any account on the platform can make: the
        /// platform is vouched for, the connector (`path`, the redirect's path) and its owner are not.
        case anyAccountsConnector(path: String)
    }

    /// A name, the domain it is tied to, and what vouches for it.
    case verified(name: String, domain: String, by: Voucher)
    /// Not verified: the redirect's host (or scheme and host), and the name the client claims.
    case selfRegistered(returnsTo: String, claimedName: String?)

    static func of(_ client: RegisteredClient, redirectURI: String, allowlist: RedirectAllowlist) -> ClientIdentity {
        let returnsTo = ConnectionLabel.host(of: redirectURI)
        let unverified = ClientIdentity.selfRegistered(returnsTo: returnsTo, claimedName: client.name)
        guard case .success(let redirect) = ParsedURI.parse(redirectURI) else { return unverified }
        // A document first: its own name, on its own site, is the most specific identity.
        if client.source == .metadataDocument, case .success(let document) = ParsedURI.parse(client.id) {
            let isLoopback = redirect.scheme == "http" && redirect.isLoopback
            if isLoopback || (redirect.scheme == "https" && sameSite(document.host, redirect.host)) {
                return .verified(name: client.name ?? document.host, domain: document.host, by: .document)
            }
        }
        switch allowlist.entry(for: redirect) {
        case .platform(let name)?: return .verified(name: name, domain: returnsTo, by: .list)
        case .platformConnector(let name)?:
            return .verified(name: name, domain: returnsTo, by: .anyAccountsConnector(path: redirect.path))
        case .operatorEntry?: return .verified(name: returnsTo, domain: returnsTo, by: .list)
        case .loopback?, nil: break
        }
        // The operator added this client with its redirect URIs (`mustdo-relayctl clients add`).
        if client.preRegistered { return .verified(name: client.name ?? returnsTo, domain: returnsTo, by: .list) }
        return unverified
    }

    /// Whether the redirect host belongs to the document host's owner: the same host or one under
    /// it; or the document sits under the redirect host (whose owner controls both). Without the
    /// public suffix list, `a.github.io` and `b.github.io` are not the same site, which is right.
    static func sameSite(_ documentHost: String, _ redirectHost: String) -> Bool {
        let document = documentHost.lowercased()
        let redirect = redirectHost.lowercased()
        if document == redirect || redirect.hasSuffix("." + document) { return true }
        return document.hasSuffix("." + redirect) && redirect.contains(".")
    }
}
