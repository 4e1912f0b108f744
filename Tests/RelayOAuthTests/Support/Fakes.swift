import RelayCrypto
import RelayHTTP
import RelayJSON
import RelayStore
import RelaySync

@testable import RelayOAuth

/// CloudKit's sign-in, as the tests need it: web auth tokens (full of `+ / =`, like Apple's) that
/// map to user record names, and switches for accounts web services cannot use.
final class FakeAppleSignIn: AppleSignIn {
    struct State {
        var identities: [String: String] = [:]
        var unsupported: Set<String> = []
        var rotate = false
        var identifyCalls = 0
        var unavailable = false
    }

    let state = Locked(State())
    let url: String

    init(url: String = "https://idmsa.apple.com/IDMSWebAuth/auth?oauth_token=fake") { self.url = url }

    /// A fresh web auth token for `appleID`; its user record name is stable per Apple ID.
    func token(for appleID: String, unsupported: Bool = false) -> String {
        // Shaped like a live token: partition, base64 with `+` and `/`, `=` padding.
        let token = "106__54__AZx+2o9h/" + Base64URL.encode(SecureRandom.bytes(count: 30)) + "=="
        let recordName = "_" + SHA256.hash(appleID).prefix(16).map { String(format: "%02x", $0) }.joined()
        state.withLock {
            $0.identities[token] = recordName
            if unsupported { $0.unsupported.insert(token) }
        }
        return token
    }

    func recordName(for appleID: String) -> String {
        "_" + SHA256.hash(appleID).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    var identifyCalls: Int { state.withLock { $0.identifyCalls } }

    func signInURL() async throws -> String { url }

    func identify(webAuthToken: String) async throws -> AppleIdentity {
        let (name, unsupported, rotate, unavailable) = state.withLock { state in
            state.identifyCalls += 1
            return (
                state.identities[webAuthToken], state.unsupported.contains(webAuthToken), state.rotate,
                state.unavailable
            )
        }
        if unavailable { throw FakeFailure() }
        if unsupported { throw OAuthError(.accountUnsupported) }
        guard let name else { throw OAuthError(.signInFailed) }
        return AppleIdentity(userRecordName: name, rotatedToken: rotate ? webAuthToken + "rotated" : nil)
    }
}

struct FakeFailure: Error {}

/// The vault's sealing, reduced to its shape: a random data key seals the web auth token with
/// the grant's identity as associated data; the key is the grant secret.
final class FakeGrantSealer: GrantSealer {
    let sealed = Locked<[String]>([])

    func seal(webAuthToken: String, grant: GrantContext) async throws -> SealedCloudKitToken {
        let key = SymmetricKey.random()
        let box = try AES256GCM.seal(
            Array(webAuthToken.utf8), key: key, authenticatedData: Array((grant.userID + "|" + grant.grantID).utf8))
        sealed.withLock { $0.append(grant.grantID) }
        return SealedCloudKitToken(sealed: box, secret: GrantSecret(key.withUnsafeBytes { Array($0) }))
    }

    /// Opens a grant's sealed token with its secret (what RelayService does per MCP call).
    static func open(_ sealed: [UInt8], secret: GrantSecret, userID: String, grantID: String) throws -> String {
        let plain = try AES256GCM.open(
            sealed, key: SymmetricKey(bytes: secret.bytes), authenticatedData: Array((userID + "|" + grantID).utf8))
        return String(decoding: plain, as: UTF8.self)
    }
}

/// Token binding as the spec describes it: the secret sealed under HKDF(token), bound to the grant.
struct FakeTokenBinder: TokenBinder {
    func bind(_ secret: GrantSecret, to token: String, grant: GrantContext) throws -> [UInt8] {
        try AES256GCM.seal(
            secret.bytes, key: key(token), authenticatedData: Array((grant.userID + "|" + grant.grantID).utf8))
    }

    func unbind(_ bound: [UInt8], token: String, grant: GrantContext) throws -> GrantSecret {
        GrantSecret(
            try AES256GCM.open(
                bound, key: key(token), authenticatedData: Array((grant.userID + "|" + grant.grantID).utf8)))
    }

    private func key(_ token: String) throws -> SymmetricKey {
        try HKDF.deriveKey(inputKeyMaterial: Array(token.utf8), salt: Array("test salt".utf8), info: Array("bind".utf8))
    }
}

/// Client metadata documents served from memory, counting fetches.
final class FakeMetadataFetcher: ClientMetadataFetcher {
    let documents = Locked<[String: FetchedDocument]>([:])
    let fetches = Locked<[String]>([])

    func serve(
        _ url: String, json: String, status: Int = 200, headers: HTTPHeaders = ["Content-Type": "application/json"]
    ) {
        documents.withLock { $0[url] = FetchedDocument(status: status, headers: headers, body: Array(json.utf8)) }
    }

    /// While set, fetches wait (a slow host); they then answer what is served when it is cleared.
    let holding = Locked<Bool>(false)

    var fetchCount: Int { fetches.withLock { $0.count } }

    /// No document at `url`: fetches fail as a host that does not answer does.
    func remove(_ url: String) { documents.withLock { $0[url] = nil } }

    func fetch(_ url: String, maximumBytes: Int, timeout: Duration) async throws -> FetchedDocument {
        fetches.withLock { $0.append(url) }
        while holding.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        guard let document = documents.withLock({ $0[url] }) else { throw FakeFailure() }
        guard document.body.count <= maximumBytes else { throw FakeFailure() }
        return document
    }
}

/// A store that fails on demand (`unavailable` or `throttled`), passing through otherwise.
final class FailingStore: Store {
    let base: any Store
    let failure = Locked<StoreError?>(nil)

    init(_ base: any Store) { self.base = base }

    func fail(with error: StoreError?) { failure.withLock { $0 = error } }

    private func check() throws(StoreError) {
        if let error = failure.withLock({ $0 }) { throw error }
    }

    func get(_ key: ItemKey) async throws(StoreError) -> Item? {
        try check()
        return try await base.get(key)
    }

    func put(_ key: ItemKey, attributes: JSONObject, expiresAt: Int?, condition: WriteCondition)
        async throws(StoreError)
        -> Item
    {
        try check()
        return try await base.put(key, attributes: attributes, expiresAt: expiresAt, condition: condition)
    }

    func update(_ key: ItemKey, _ update: ItemUpdate, condition: WriteCondition) async throws(StoreError) -> Item {
        try check()
        return try await base.update(key, update, condition: condition)
    }

    func delete(_ key: ItemKey, condition: WriteCondition) async throws(StoreError) -> Item? {
        try check()
        return try await base.delete(key, condition: condition)
    }

    func transact(_ writes: [StoreWrite]) async throws(StoreError) {
        try check()
        try await base.transact(writes)
    }

    func query(_ query: Query) async throws(StoreError) -> QueryPage {
        try check()
        return try await base.query(query)
    }

    func scan(pkPrefix: String, cursor: ScanCursor?, limit: Int) async throws(StoreError) -> ScanPage {
        try check()
        return try await base.scan(pkPrefix: pkPrefix, cursor: cursor, limit: limit)
    }
}
