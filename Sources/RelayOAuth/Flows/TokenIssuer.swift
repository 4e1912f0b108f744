import RelayCrypto
import RelayHTTP
import RelayJSON
import RelayStore

/// A token endpoint answer: what goes back to the client, and the hashes the grant needs.
struct IssuedTokens: Sendable, Equatable {
    var accessToken: String
    var refreshToken: String?
    var expiresIn: Int
    var scope: ScopeSet
    var accessHash: String?
    var refreshHash: String?

    /// RFC 6749 §5.1 JSON, `no-store`.
    func response() -> Response {
        var body: JSONObject = [
            "access_token": .string(accessToken), "token_type": "Bearer", "expires_in": .int(expiresIn),
        ]
        if let refreshToken { body["refresh_token"] = .string(refreshToken) }
        body["scope"] = .string(scope.text)
        var response = Response.json(.object(body))
        NoStore.apply(to: &response)
        return response
    }

    /// The pair sealed so that only a holder of `previousToken` (plus this server) can open it:
    /// the idempotent-retry copy a grant keeps after a rotation.
    func sealed(under previousToken: String, grantID: String, hasher: TokenHasher) -> [UInt8]? {
        var body: JSONObject = [
            "access_token": .string(accessToken), "expires_in": .int(expiresIn), "scope": .string(scope.text),
        ]
        if let refreshToken { body["refresh_token"] = .string(refreshToken) }
        if let refreshHash { body["refresh_hash"] = .string(refreshHash) }
        let key = hasher.sealingKey(token: previousToken, purpose: "refresh successor")
        return try? AES256GCM.seal(JSONValue.object(body).bytes, key: key, authenticatedData: Array(grantID.utf8))
    }

    /// Opens what `sealed` made; nil for the wrong token, grant or pepper.
    static func open(_ box: [UInt8], with previousToken: String, grantID: String, hasher: TokenHasher) -> IssuedTokens?
    {
        let key = hasher.sealingKey(token: previousToken, purpose: "refresh successor")
        guard let plain = try? AES256GCM.open(box, key: key, authenticatedData: Array(grantID.utf8)),
            let object = (try? JSONValue(parsing: plain))?.objectValue, let access = object.string("access_token"),
            let expiresIn = object.int("expires_in"), let scope = object.string("scope")
        else { return nil }
        return IssuedTokens(
            accessToken: access, refreshToken: object.string("refresh_token"), expiresIn: expiresIn,
            scope: ScopeSet(text: scope), accessHash: nil,
            refreshHash: object.string("refresh_hash"))
    }
}

/// Mints access and refresh tokens for a grant: random prefixed tokens, stored only as keyed
/// hashes, each carrying the grant secret bound to it.
struct TokenIssuer: Sendable {
    let context: OAuthContext
    let grants: Grants

    /// Mints an access token (and a refresh token unless `withRefresh` is false) for `grant`, both
    /// with `scope`, and the store writes that keep them: the caller makes them in the same
    /// transaction as the grant's change, so tokens exist exactly when the grant names them.
    /// Lifetimes are clamped to the grant's end.
    func mint(
        grant: GrantRecord, secret: GrantSecret, scope: ScopeSet, withRefresh: Bool, generation: Int
    ) throws(OAuthError) -> (tokens: IssuedTokens, writes: [StoreWrite]) {
        let now = context.now
        let lifetimes = context.configuration.lifetimes
        let accessExpiry = min(now + lifetimes.accessToken.wholeSeconds, grant.endsAt)
        guard accessExpiry > now else { throw OAuthError(.invalidGrant, "The grant has ended.") }
        let accessToken = TokenKind.accessToken.generate()
        let accessHash = context.hasher.hash(accessToken)
        let access = TokenRecord(
            hash: accessHash.hash, pepperVersion: accessHash.version, grantID: grant.id, clientID: grant.clientID,
            scope: scope, resource: grant.resource,
            bound: try context.bind(secret, to: accessToken, grant: grant.context), generation: nil, issuedAt: now,
            expiresAt: accessExpiry)
        var writes = grants.tokenWrites(access, kind: .accessToken)
        var issued = IssuedTokens(
            accessToken: accessToken, refreshToken: nil, expiresIn: accessExpiry - now, scope: scope,
            accessHash: accessHash.hash, refreshHash: nil)
        guard withRefresh else { return (issued, writes) }
        let refreshToken = TokenKind.refreshToken.generate()
        let refreshHash = context.hasher.hash(refreshToken)
        let refresh = TokenRecord(
            hash: refreshHash.hash, pepperVersion: refreshHash.version, grantID: grant.id, clientID: grant.clientID,
            // The refresh token carries the scope it was issued with, so a narrowed connection stays
            // narrowed: the next refresh cannot ask for more (issue 37; SECURITY.md).
            scope: scope, resource: grant.resource,
            bound: try context.bind(secret, to: refreshToken, grant: grant.context), generation: generation,
            issuedAt: now, expiresAt: min(now + lifetimes.refreshToken.wholeSeconds, grant.endsAt))
        writes += grants.tokenWrites(refresh, kind: .refreshToken)
        issued.refreshToken = refreshToken
        issued.refreshHash = refreshHash.hash
        return (issued, writes)
    }
}
