/// The seam through which RelayService plugs the vault into the authorization server. RelayOAuth never
/// sees a CloudKit token after handing it to the sealer, nor any vault key: a grant carries opaque
/// bytes, and each token carries its own binding of the grant's secret.

/// The per-grant secret the vault needs to open the grant's sealed CloudKit token (for the
/// envelope design: the KeyService-wrapped data key). Opaque here; never stored as is: only
/// bound to a live code or token (`TokenBinder`). Its description is redacted.
package struct GrantSecret: Sendable, Equatable, CustomStringConvertible {
    /// The bytes, as the vault produced them.
    package let bytes: [UInt8]

    /// Wraps bytes.
    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Always `<grant secret>`.
    package var description: String { "<grant secret>" }
}

/// What sealing a new grant's CloudKit token produces.
package struct SealedCloudKitToken: Sendable {
    /// Stored on the grant: useless without the `secret`.
    package var sealed: [UInt8]
    /// Bound to the grant's code, then to each access and refresh token; never stored bare.
    package var secret: GrantSecret

    /// A sealed CloudKit token and the secret that opens it.
    package init(sealed: [UInt8], secret: GrantSecret) {
        self.sealed = sealed
        self.secret = secret
    }
}

/// Which grant a seal or a binding belongs to: the vault puts both into its encryption context
/// and associated data, so nothing sealed for one grant or user opens as another's.
package struct GrantContext: Sendable, Hashable {
    /// HMAC of the CloudKit user record name.
    package let userID: String
    /// The grant.
    package let grantID: String

    /// A context.
    package init(userID: String, grantID: String) {
        self.userID = userID
        self.grantID = grantID
    }
}

/// Seals a CloudKit web auth token for a new grant (RelayService: `Vault.seal` with the encryption
/// context purpose | userID | grantID | key version).
package protocol GrantSealer: Sendable {
    /// Seals `webAuthToken` for the grant.
    func seal(webAuthToken: String, grant: GrantContext) async throws -> SealedCloudKitToken
}

/// Token binding: the grant secret wrapped again under a key derived from one live code or token,
/// so a full copy of the store (and the key service) opens nothing without a token only the client
/// holds. Called whenever a code, access token or refresh token is minted; the result is stored in
/// that token's record.
package protocol TokenBinder: Sendable {
    /// `secret` wrapped under a key derived from `token`, bound to the grant.
    func bind(_ secret: GrantSecret, to token: String, grant: GrantContext) throws -> [UInt8]
    /// The secret back from `bound`; throws when `token` or the grant is not the one it was bound to.
    func unbind(_ bound: [UInt8], token: String, grant: GrantContext) throws -> GrantSecret
}
