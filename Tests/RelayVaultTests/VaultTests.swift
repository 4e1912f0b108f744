import RelayCrypto
import RelaySync
import Testing

@testable import RelayVault

struct VaultTests {
    let context = SealContext(
        purpose: "cloudkit-web-auth-token", userId: "user-hmac", grantId: "grant-1", keyVersion: 1)
    let secret = Array("ckWebAuthToken-value-0123456789".utf8)

    /// A vault with a sealed grant bound to one token.
    struct Sealing {
        let vault: Vault
        let keys: FakeKeyService
        let grant: SealedGrant
        let wrapped: WrappedKey
        let token: String
        let bound: TokenBoundKey
    }

    func sealed(
        cacheTTL: Duration = .seconds(300), capacity: Int = 100, clock: ManualClock = ManualClock()
    ) async throws -> Sealing {
        let keys = try FakeKeyService()
        var configuration = Vault.Configuration()
        configuration.cacheTTL = cacheTTL
        configuration.cacheCapacity = capacity
        let vault = Vault(
            keyService: keys, bindingSecret: SymmetricKey.random(), clock: clock, configuration: configuration)
        let sealed = try await vault.seal(secret, context: context)
        let token = PrefixedToken.generate(prefix: "mdr_at_")
        let bound = try vault.bindToToken(sealed.wrappedKey, token: token, context: context)
        return Sealing(
            vault: vault, keys: keys, grant: sealed.grant, wrapped: sealed.wrappedKey, token: token, bound: bound)
    }

    @Test func sealsBindsAndUnseals() async throws {
        let s = try await sealed()
        #expect(s.keys.generateCalls == 1)
        let opened = try await s.vault.unseal(s.grant, tokenBoundKey: s.bound, token: s.token, context: context)
        #expect(opened == secret)
        #expect(s.grant.bytes.first == 1 && s.bound.bytes.first == 1, "envelopes carry version 1")
        #expect(s.grant.bytes.count == 1 + secret.count + AES256GCM.overhead)
    }

    @Test func openingUnderAnotherContextFails() async throws {
        let s = try await sealed(cacheTTL: .zero)
        let others = [
            SealContext(purpose: "other", userId: context.userId, grantId: context.grantId, keyVersion: 1),
            SealContext(purpose: context.purpose, userId: "someone-else", grantId: context.grantId, keyVersion: 1),
            SealContext(purpose: context.purpose, userId: context.userId, grantId: "grant-2", keyVersion: 1),
            SealContext(purpose: context.purpose, userId: context.userId, grantId: context.grantId, keyVersion: 2),
        ]
        for other in others {
            await #expect(throws: VaultError.authenticationFailed) {
                try await s.vault.unseal(s.grant, tokenBoundKey: s.bound, token: s.token, context: other)
            }
            // Even with a binding made for the other context, the grant and data key refuse it.
            let rebound = try s.vault.bindToToken(s.wrapped, token: s.token, context: other)
            await #expect(throws: VaultError.authenticationFailed) {
                try await s.vault.unseal(s.grant, tokenBoundKey: rebound, token: s.token, context: other)
            }
        }
    }

    @Test func grantsAndBindingsCannotBeSwapped() async throws {
        let s = try await sealed(cacheTTL: .zero)
        let otherContext = SealContext(purpose: context.purpose, userId: "user-b", grantId: "grant-b")
        let other = try await s.vault.seal(Array("user B's token".utf8), context: otherContext)
        let otherToken = PrefixedToken.generate(prefix: "mdr_at_")
        let otherBound = try s.vault.bindToToken(other.wrappedKey, token: otherToken, context: otherContext)
        // User A's token record pointed at user B's sealed grant: wrong data key.
        await #expect(throws: VaultError.authenticationFailed) {
            try await s.vault.unseal(other.grant, tokenBoundKey: s.bound, token: s.token, context: context)
        }
        // B's binding with A's token: wrong token.
        await #expect(throws: VaultError.authenticationFailed) {
            try await s.vault.unseal(s.grant, tokenBoundKey: otherBound, token: s.token, context: context)
        }
    }

    /// The threat token binding answers: someone with the whole store (sealed grant, token-bound
    /// key, token hashes) and the key service, even the binding secret, but not the token.
    @Test func storeAndKeyServiceWithoutTheTokenCannotOpen() async throws {
        let s = try await sealed(cacheTTL: .zero)
        let storedBytes = [s.grant.bytes, s.bound.bytes]
        for blob in storedBytes {
            #expect(!contains(blob, s.wrapped.bytes), "the KMS-openable wrapped key is never stored as is")
            await #expect(throws: VaultError.self) {
                try await s.keys.unwrap(WrappedKey(bytes: blob), context: context.encryptionContext)
            }
        }
        let oneCharacterOff = String(s.token.dropLast()) + (s.token.hasSuffix("A") ? "B" : "A")
        for guess in ["", "mdr_at_", PrefixedToken.generate(prefix: "mdr_at_"), oneCharacterOff] {
            await #expect(throws: VaultError.authenticationFailed) {
                try await s.vault.unseal(s.grant, tokenBoundKey: s.bound, token: guess, context: context)
            }
        }
        // The same store and key service behind a vault with another binding secret do not open it either.
        let otherVault = Vault(keyService: s.keys, bindingSecret: SymmetricKey.random())
        await #expect(throws: VaultError.authenticationFailed) {
            try await otherVault.unseal(s.grant, tokenBoundKey: s.bound, token: s.token, context: context)
        }
    }

    @Test func resealKeepsEveryBindingWorking() async throws {
        let s = try await sealed()
        let refresh = PrefixedToken.generate(prefix: "mdr_rt_")
        let refreshBound = try s.vault.bindToToken(s.wrapped, token: refresh, context: context)
        let rotated = Array("rotated-web-auth-token".utf8)
        let resealed = try await s.vault.reseal(rotated, tokenBoundKey: s.bound, token: s.token, context: context)
        #expect(resealed != s.grant)
        #expect(try await s.vault.unseal(resealed, tokenBoundKey: s.bound, token: s.token, context: context) == rotated)
        #expect(
            try await s.vault.unseal(resealed, tokenBoundKey: refreshBound, token: refresh, context: context) == rotated
        )
        #expect(s.keys.generateCalls == 1, "the grant keeps its data key")
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
