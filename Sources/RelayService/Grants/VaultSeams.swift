import RelayOAuth
import RelayVault

/// The purpose every CloudKit token is sealed under; also the KMS key policy's required
/// `purpose` encryption-context value (deploy/aws/mustdo-relay.cfn.json).
let cloudKitTokenPurpose = "cloudkit-web-auth-token"

extension SealContext {
    /// The vault context of a grant's CloudKit token.
    init(_ grant: GrantContext) {
        self.init(purpose: cloudKitTokenPurpose, userId: grant.userID, grantId: grant.grantID)
    }
}

/// `GrantSealer` on the vault: a fresh data key per grant, wrapped by the key service; the grant
/// keeps the sealed token, the wrapped key travels only bound to tokens.
struct VaultGrantSealer: GrantSealer {
    let vault: Vault

    func seal(webAuthToken: String, grant: GrantContext) async throws -> RelayOAuth.SealedCloudKitToken {
        let sealed = try await vault.seal(Array(webAuthToken.utf8), context: SealContext(grant))
        return RelayOAuth.SealedCloudKitToken(sealed: sealed.grant.bytes, secret: GrantSecret(sealed.wrappedKey.bytes))
    }
}

/// `TokenBinder` on the vault: the wrapped data key sealed under HKDF(token).
struct VaultTokenBinder: TokenBinder {
    let vault: Vault

    func bind(_ secret: GrantSecret, to token: String, grant: GrantContext) throws -> [UInt8] {
        try vault.bindToToken(WrappedKey(bytes: secret.bytes), token: token, context: SealContext(grant)).bytes
    }

    func unbind(_ bound: [UInt8], token: String, grant: GrantContext) throws -> GrantSecret {
        GrantSecret(
            try vault.wrappedKey(from: TokenBoundKey(bytes: bound), token: token, context: SealContext(grant)).bytes)
    }
}
