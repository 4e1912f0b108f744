import Foundation
import RelayCrypto
import RelayJSON
import RelayOAuth
import RelayStore
import RelayVault
import Synchronization

/// A store that counts reads and writes on their way to the real one.
final class CountingStore: Store {
    let base: any Store
    let reads = Atomic<Int>(0)
    let writes = Atomic<Int>(0)

    init(_ base: any Store) { self.base = base }

    func get(_ key: ItemKey) async throws(StoreError) -> Item? {
        reads.add(1, ordering: .relaxed)
        return try await base.get(key)
    }

    func put(_ key: ItemKey, attributes: JSONObject, expiresAt: Int?, condition: WriteCondition)
        async throws(StoreError)
        -> Item
    {
        writes.add(1, ordering: .relaxed)
        return try await base.put(key, attributes: attributes, expiresAt: expiresAt, condition: condition)
    }

    func update(_ key: ItemKey, _ update: ItemUpdate, condition: WriteCondition) async throws(StoreError) -> Item {
        writes.add(1, ordering: .relaxed)
        return try await base.update(key, update, condition: condition)
    }

    func delete(_ key: ItemKey, condition: WriteCondition) async throws(StoreError) -> Item? {
        writes.add(1, ordering: .relaxed)
        return try await base.delete(key, condition: condition)
    }

    func transact(_ writes: [StoreWrite]) async throws(StoreError) {
        self.writes.add(1, ordering: .relaxed)
        try await base.transact(writes)
    }

    func query(_ query: Query) async throws(StoreError) -> QueryPage {
        reads.add(1, ordering: .relaxed)
        return try await base.query(query)
    }

    func scan(pkPrefix: String, cursor: ScanCursor?, limit: Int) async throws(StoreError) -> ScanPage {
        reads.add(1, ordering: .relaxed)
        return try await base.scan(pkPrefix: pkPrefix, cursor: cursor, limit: limit)
    }
}

/// A key service that counts calls (a stand-in for KMS round trips).
final class CountingKeyService: KeyService {
    let base: LocalKeyService
    let calls = Atomic<Int>(0)

    init(_ base: LocalKeyService) { self.base = base }

    func generateDataKey(context: EncryptionContext) async throws(VaultError) -> DataKey {
        calls.add(1, ordering: .relaxed)
        return try await base.generateDataKey(context: context)
    }

    func unwrap(_ wrapped: WrappedKey, context: EncryptionContext) async throws(VaultError) -> SymmetricKey {
        calls.add(1, ordering: .relaxed)
        return try await base.unwrap(wrapped, context: context)
    }
}

/// The vault behind the OAuth seams, as RelayService wires it.
struct VaultSeams: GrantSealer, TokenBinder {
    static let purpose = "cloudkit-web-auth-token"
    let vault: Vault

    static func context(_ grant: GrantContext) -> SealContext {
        SealContext(purpose: purpose, userId: grant.userID, grantId: grant.grantID)
    }

    func seal(webAuthToken: String, grant: GrantContext) async throws -> RelayOAuth.SealedCloudKitToken {
        let sealed = try await vault.seal(Array(webAuthToken.utf8), context: Self.context(grant))
        return RelayOAuth.SealedCloudKitToken(sealed: sealed.grant.bytes, secret: GrantSecret(sealed.wrappedKey.bytes))
    }

    func bind(_ secret: GrantSecret, to token: String, grant: GrantContext) throws -> [UInt8] {
        try vault.bindToToken(WrappedKey(bytes: secret.bytes), token: token, context: Self.context(grant)).bytes
    }

    func unbind(_ bound: [UInt8], token: String, grant: GrantContext) throws -> GrantSecret {
        GrantSecret(
            try vault.wrappedKey(from: TokenBoundKey(bytes: bound), token: token, context: Self.context(grant)).bytes)
    }
}

/// CloudKit's sign-in reduced to a lookup: the token names the user.
struct BenchSignIn: AppleSignIn {
    func signInURL() async throws -> String { "https://idmsa.apple.com/IDMSWebAuth/auth?oauth_token=bench" }

    func identify(webAuthToken: String) async throws -> AppleIdentity {
        AppleIdentity(userRecordName: "_" + String(webAuthToken.suffix(32)))
    }
}
