import RelayCrypto
import RelaySync

/// Envelope encryption of a grant's upstream secret (the CloudKit web auth token), bound to the
/// client's tokens.
///
/// - `seal`: a fresh data key K per grant; the secret is sealed under K with the `SealContext` as
///   AAD; K is wrapped by the `KeyService` under the same context. The grant stores only the
///   sealed blob.
/// - Token binding: the wrapped K is sealed again under `HKDF(token, salt: binding secret, info:
///   purpose)` for each live token (and the authorization code) and stored in that token's record.
///   A full copy of the store plus the key service cannot open a grant without a token that only
///   the client holds.
/// - `unseal`: token → binding key → wrapped K → key service → K → secret. Unwrapped keys are
///   cached per token for a short TTL, so the key service (KMS) is not called on every request.
package final class Vault: Sendable {
    /// Cache and timeout settings.
    package struct Configuration: Sendable {
        /// How long an unwrapped data key stays cached per token; zero disables the cache.
        package var cacheTTL: Duration = .seconds(300)
        /// Cached keys at most; past it the oldest go first.
        package var cacheCapacity = 10_000
        /// How long a key-service call may take before it fails with `keyServiceUnavailable`.
        package var keyServiceTimeout: Duration = .seconds(5)

        /// The defaults: 5-minute cache of up to 10 000 keys, 5-second key-service timeout.
        package init() {}
    }

    private let keyService: any KeyService
    private let bindingSalt: [UInt8]
    private let cache: KeyCache?
    private let keyServiceTimeout: Duration

    /// A vault over `keyService`. `bindingSecret` (the server secret, at least 32 random bytes, kept
    /// out of the store) salts the token-binding keys, so the store alone cannot derive them even
    /// from a leaked token hash.
    package init(
        keyService: any KeyService, bindingSecret: SymmetricKey, clock: any WallClock = SystemClock(),
        configuration: Configuration = Configuration()
    ) {
        self.keyService = keyService
        self.bindingSalt = bindingSecret.withUnsafeBytes { Array($0) }
        self.keyServiceTimeout = configuration.keyServiceTimeout
        let ttl = configuration.cacheTTL.seconds
        self.cache =
            ttl > 0 && configuration.cacheCapacity > 0
            ? KeyCache(ttl: ttl, capacity: configuration.cacheCapacity, clock: clock) : nil
    }

    /// Seals `secret` under a new data key. Store `grant` in the grant; bind `wrappedKey` to the
    /// code or token that comes next, then drop it.
    package func seal(_ secret: [UInt8], context: SealContext) async throws(VaultError) -> Sealed {
        let keyService = self.keyService
        let dataKey = try await withTimeout(keyServiceTimeout) { () throws(VaultError) -> DataKey in
            try await keyService.generateDataKey(context: context.encryptionContext)
        }
        let sealed = try Envelope.seal(
            secret, kind: .sealedGrant, key: dataKey.plaintext, context: context)
        return Sealed(grant: SealedGrant(bytes: sealed), wrappedKey: dataKey.wrapped)
    }

    /// Seals the wrapped data key under a key derived from `token`, for that token's record.
    package func bindToToken(_ wrappedKey: WrappedKey, token: String, context: SealContext) throws(VaultError)
        -> TokenBoundKey
    {
        let envelope = try Envelope.seal(
            wrappedKey.bytes, kind: .tokenBound, key: try bindingKey(token: token, purpose: context.purpose),
            context: context)
        return TokenBoundKey(bytes: envelope)
    }

    /// The wrapped data key inside a token-bound key, given the token.
    package func wrappedKey(from bound: TokenBoundKey, token: String, context: SealContext) throws(VaultError)
        -> WrappedKey
    {
        let bytes = try Envelope.open(
            bound.bytes, kind: .tokenBound, key: try bindingKey(token: token, purpose: context.purpose),
            context: context)
        return WrappedKey(bytes: bytes)
    }

    /// Opens a sealed grant with a token and its token-bound key.
    package func unseal(
        _ sealed: SealedGrant, tokenBoundKey: TokenBoundKey, token: String, context: SealContext
    ) async throws(VaultError) -> [UInt8] {
        if let key = cache?.lookup(token: token, context: context) {
            return try Envelope.open(sealed.bytes, kind: .sealedGrant, key: key, context: context)
        }
        let key = try await dataKey(tokenBoundKey: tokenBoundKey, token: token, context: context)
        let secret = try Envelope.open(sealed.bytes, kind: .sealedGrant, key: key, context: context)
        cache?.insert(token: token, context: context, key: key)  // only a key that opened the grant
        return secret
    }

    /// Seals a new value of the secret (a rotated CloudKit token) under the grant's existing data
    /// key, so every live token's binding keeps working.
    package func reseal(
        _ secret: [UInt8], tokenBoundKey: TokenBoundKey, token: String, context: SealContext
    ) async throws(VaultError) -> SealedGrant {
        let key: SymmetricKey
        if let cached = cache?.lookup(token: token, context: context) {
            key = cached
        } else {
            key = try await dataKey(tokenBoundKey: tokenBoundKey, token: token, context: context)
        }
        return SealedGrant(
            bytes: try Envelope.seal(secret, kind: .sealedGrant, key: key, context: context))
    }

    /// Drops the cached data key of a token (on revocation or grant deletion).
    package func evictCachedKey(token: String) {
        cache?.remove(token: token)
    }

    /// Drops every cached data key of a grant, whichever token unwrapped it (the grant was
    /// revoked or deleted, or one of its tokens was: the others unwrap again on their next use).
    package func evictCachedKeys(grantID: String) {
        cache?.remove(grantID: grantID)
    }

    /// Keys currently cached (for metrics).
    package var cachedKeyCount: Int { cache?.count ?? 0 }

    private func dataKey(tokenBoundKey: TokenBoundKey, token: String, context: SealContext) async throws(VaultError)
        -> SymmetricKey
    {
        let wrapped = try wrappedKey(from: tokenBoundKey, token: token, context: context)
        let keyService = self.keyService
        return try await withTimeout(keyServiceTimeout) { () throws(VaultError) -> SymmetricKey in
            try await keyService.unwrap(wrapped, context: context.encryptionContext)
        }
    }

    private func bindingKey(token: String, purpose: String) throws(VaultError) -> SymmetricKey {
        do {
            return try HKDF.deriveKey(
                inputKeyMaterial: Array(token.utf8), salt: bindingSalt,
                info: Array("mustdo-relay/token-binding/v1:\(purpose)".utf8))
        } catch {
            throw .malformed(error.description)
        }
    }
}
