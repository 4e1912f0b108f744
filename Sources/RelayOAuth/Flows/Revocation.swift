/// RFC 7009 revocation. The token's prefix says what it is, whatever `token_type_hint` claims;
/// a token of another client, an unknown token or garbage changes nothing, and the answer is
/// always 200 (§2.2).
struct Revocation: Sendable {
    let context: OAuthContext
    let grants: Grants

    func revoke(token: String, client: RegisteredClient) async throws(OAuthError) {
        if TokenKind.accessToken.accepts(token) {
            guard
                let (item, hash) = try await context.find(context.hasher.candidates(token), key: OAuthKeys.accessToken),
                let record = TokenRecord(item: item), record.clientID == client.id
            else { return }
            // An access token alone: the refresh token and the grant stay (RFC 7009 §2.1 allows both).
            try await grants.removeToken(.access(hash), grantID: record.grantID)
            // Before the 200 goes out: the relay's caches forget the token, so it is refused from
            // the next request on (the grant's revocation does the same through `grantRevoked`).
            context.events(.accessTokenRevoked(grantID: record.grantID, tokenHash: hash))
        } else if TokenKind.refreshToken.accepts(token) {
            guard
                let (item, _) = try await context.find(context.hasher.candidates(token), key: OAuthKeys.refreshToken),
                let record = TokenRecord(item: item), record.clientID == client.id
            else { return }
            // A refresh token stands for the grant: everything it issued goes with it.
            try await grants.revoke(record.grantID, reason: "revoked by the client")
        }
    }
}
