/// A client as the authorization server knows it: registered through DCR, or described by a
/// client ID metadata document it fetched.
struct RegisteredClient: Sendable, Equatable {
    /// Where the client's description came from; the consent page says which.
    enum Source: String, Sendable, Equatable {
        case registration = "dcr"
        case metadataDocument = "cimd"
    }

    /// How the client authenticates at `/token` and `/revoke` (RFC 7591 §2).
    enum AuthMethod: String, Sendable, Equatable, CaseIterable {
        case none
        case clientSecretPost = "client_secret_post"
        case clientSecretBasic = "client_secret_basic"

        var usesSecret: Bool { self != .none }
    }

    /// The client ID (random for DCR; the document URL for metadata documents).
    var id: String
    var source: Source
    /// The name the client gave itself (shown escaped, never trusted).
    var name: String?
    /// Registered redirect URIs, each already on the allowlist.
    var redirectURIs: [String]
    var authMethod: AuthMethod
    /// `authorization_code`, and `refresh_token` unless the client left it out.
    var grantTypes: [String]
    /// The scopes the client may ask for; nil means every scope the server has.
    var scope: ScopeSet?
    /// HMAC of the client secret under pepper `secretPepperVersion`, for secret-based methods.
    var secretHash: [UInt8]?
    var secretPepperVersion: Int?
    /// When it was registered (or the document fetched), seconds since the epoch.
    var issuedAt: Int
    /// For a DCR client: the record it was loaded from (`ClientRegistry`).
    var stored: StoredClient? = nil
    /// Added by the operator (`mustdo-relayctl clients add`): never expires, and the consent page
    /// shows it as verified (the operator vouches for it).
    var preRegistered = false

    /// Whether this client may use the refresh-token grant.
    var mayRefresh: Bool { grantTypes.contains("refresh_token") }
}
