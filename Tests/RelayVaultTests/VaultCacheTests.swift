import RelayCrypto
import RelaySync
import Testing

@testable import RelayVault

/// The unwrapped-key cache (on, off, expiry, size bound, eviction) and key-service faults.
struct VaultCacheTests {
    let context = SealContext(purpose: "cloudkit-web-auth-token", userId: "user-hmac", grantId: "grant-1")
    let secret = Array("web-auth-token".utf8)

    func vault(ttl: Duration, capacity: Int = 100, timeout: Duration = .seconds(5), clock: ManualClock) throws
        -> (Vault, FakeKeyService)
    {
        let keys = try FakeKeyService()
        var configuration = Vault.Configuration()
        configuration.cacheTTL = ttl
        configuration.cacheCapacity = capacity
        configuration.keyServiceTimeout = timeout
        return (
            Vault(keyService: keys, bindingSecret: SymmetricKey.random(), clock: clock, configuration: configuration),
            keys
        )
    }

    /// Seals once and binds to `count` tokens.
    func grant(_ vault: Vault, tokens count: Int) async throws -> (SealedGrant, [(String, TokenBoundKey)]) {
        let sealed = try await vault.seal(secret, context: context)
        let tokens = try (0..<count).map { _ in
            let token = PrefixedToken.generate(prefix: "mdr_at_")
            return (token, try vault.bindToToken(sealed.wrappedKey, token: token, context: context))
        }
        return (sealed.grant, tokens)
    }

    @Test func warmCacheSkipsTheKeyService() async throws {
        let clock = ManualClock()
        let (vault, keys) = try vault(ttl: .seconds(300), clock: clock)
        let (sealed, tokens) = try await grant(vault, tokens: 1)
        let (token, bound) = tokens[0]
        for _ in 0..<5 {
            #expect(try await vault.unseal(sealed, tokenBoundKey: bound, token: token, context: context) == secret)
        }
        #expect(keys.unwrapCalls == 1)
        #expect(vault.cachedKeyCount == 1)
        clock.advance(by: 299)
        _ = try await vault.unseal(sealed, tokenBoundKey: bound, token: token, context: context)
        #expect(keys.unwrapCalls == 1, "still cached just before the TTL")
        clock.advance(by: 1)
        _ = try await vault.unseal(sealed, tokenBoundKey: bound, token: token, context: context)
        #expect(keys.unwrapCalls == 2, "expired after the TTL")
        vault.evictCachedKey(token: token)
        _ = try await vault.unseal(sealed, tokenBoundKey: bound, token: token, context: context)
        #expect(keys.unwrapCalls == 3, "evicted on request")
    }

    /// A revoked grant's keys leave memory whichever token unwrapped them; another grant's stay.
    @Test func evictingAGrantDropsTheKeysOfEveryOneOfItsTokens() async throws {
        let (vault, keys) = try vault(ttl: .seconds(300), clock: ManualClock())
        let (sealed, tokens) = try await grant(vault, tokens: 2)
        for (token, bound) in tokens {
            _ = try await vault.unseal(sealed, tokenBoundKey: bound, token: token, context: context)
        }
        let other = SealContext(purpose: context.purpose, userId: context.userId, grantId: "grant-2")
        let otherSealed = try await vault.seal(secret, context: other)
        let otherToken = PrefixedToken.generate(prefix: "mdr_at_")
        let otherBound = try vault.bindToToken(otherSealed.wrappedKey, token: otherToken, context: other)
        _ = try await vault.unseal(otherSealed.grant, tokenBoundKey: otherBound, token: otherToken, context: other)
        #expect(vault.cachedKeyCount == 3)
        #expect(keys.unwrapCalls == 3)

        vault.evictCachedKeys(grantID: "grant-1")
        #expect(vault.cachedKeyCount == 1)
        _ = try await vault.unseal(otherSealed.grant, tokenBoundKey: otherBound, token: otherToken, context: other)
        #expect(keys.unwrapCalls == 3, "the other grant's key is still cached")
        _ = try await vault.unseal(sealed, tokenBoundKey: tokens[0].1, token: tokens[0].0, context: context)
        #expect(keys.unwrapCalls == 4, "the evicted grant's key comes from the key service again")
    }

    @Test func zeroTTLDisablesTheCache() async throws {
        let (vault, keys) = try vault(ttl: .zero, clock: ManualClock())
        let (sealed, tokens) = try await grant(vault, tokens: 1)
        for _ in 0..<3 {
            _ = try await vault.unseal(sealed, tokenBoundKey: tokens[0].1, token: tokens[0].0, context: context)
        }
        #expect(keys.unwrapCalls == 3 && vault.cachedKeyCount == 0)
    }

    @Test func sizeBoundEvictsTheOldest() async throws {
        let (vault, keys) = try vault(ttl: .seconds(300), capacity: 2, clock: ManualClock())
        let (sealed, tokens) = try await grant(vault, tokens: 3)
        for (token, bound) in tokens {
            _ = try await vault.unseal(sealed, tokenBoundKey: bound, token: token, context: context)
        }
        #expect(keys.unwrapCalls == 3 && vault.cachedKeyCount == 2)
        _ = try await vault.unseal(sealed, tokenBoundKey: tokens[2].1, token: tokens[2].0, context: context)
        #expect(keys.unwrapCalls == 3, "the newest is cached")
        _ = try await vault.unseal(sealed, tokenBoundKey: tokens[0].1, token: tokens[0].0, context: context)
        #expect(keys.unwrapCalls == 4, "the oldest was evicted")
    }

    @Test func aCachedKeyStillNeedsTheRightTokenAndContext() async throws {
        let (vault, keys) = try vault(ttl: .seconds(300), clock: ManualClock())
        let (sealed, tokens) = try await grant(vault, tokens: 1)
        let (token, bound) = tokens[0]
        _ = try await vault.unseal(sealed, tokenBoundKey: bound, token: token, context: context)
        await #expect(throws: VaultError.authenticationFailed) {
            try await vault.unseal(sealed, tokenBoundKey: bound, token: token + "x", context: context)
        }
        let other = SealContext(purpose: context.purpose, userId: context.userId, grantId: "grant-2")
        await #expect(throws: VaultError.authenticationFailed) {
            try await vault.unseal(sealed, tokenBoundKey: bound, token: token, context: other)
        }
        #expect(keys.unwrapCalls == 1, "failed attempts never reach the key service")
    }

    @Test func failedUnsealsAreNotCached() async throws {
        let (vault, keys) = try vault(ttl: .seconds(300), clock: ManualClock())
        let (sealed, tokens) = try await grant(vault, tokens: 1)
        var tampered = sealed.bytes
        tampered[tampered.count - 1] ^= 1
        await #expect(throws: VaultError.authenticationFailed) {
            try await vault.unseal(
                SealedGrant(bytes: tampered), tokenBoundKey: tokens[0].1, token: tokens[0].0, context: context)
        }
        #expect(vault.cachedKeyCount == 0 && keys.unwrapCalls == 1)
    }

    @Test func hungKeyServiceTimesOutWithATypedError() async throws {
        let (vault, keys) = try vault(ttl: .zero, timeout: .milliseconds(100), clock: ManualClock())
        let (sealed, tokens) = try await grant(vault, tokens: 1)
        keys.set(.hang(seconds: 30))
        let started = ContinuousClock.now
        await #expect {
            try await vault.unseal(sealed, tokenBoundKey: tokens[0].1, token: tokens[0].0, context: context)
        } throws: { error in
            guard case .keyServiceUnavailable(let reason) = error as? VaultError else { return false }
            return reason.contains("no answer")
        }
        // Generous for a loaded machine; without the timeout the answer would take 30 s.
        #expect(ContinuousClock.now - started < .seconds(15), "answered at the timeout, not when the service woke")
        await #expect(throws: VaultError.self) { try await vault.seal(secret, context: context) }
    }

    @Test func keyServiceErrorsPassThrough() async throws {
        let (vault, keys) = try vault(ttl: .zero, clock: ManualClock())
        let (sealed, tokens) = try await grant(vault, tokens: 1)
        keys.set(.failing(.keyServiceThrottled))
        await #expect(throws: VaultError.keyServiceThrottled) {
            try await vault.unseal(sealed, tokenBoundKey: tokens[0].1, token: tokens[0].0, context: context)
        }
        keys.set(.failing(.keyServiceUnavailable("connection refused")))
        await #expect(throws: VaultError.keyServiceUnavailable("connection refused")) {
            try await vault.seal(secret, context: context)
        }
        keys.set(.normal)
        #expect(
            try await vault.unseal(sealed, tokenBoundKey: tokens[0].1, token: tokens[0].0, context: context) == secret)
    }
}
