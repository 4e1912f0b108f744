import RelayJSON
import RelayStore

/// `grant_type=refresh_token`: rotation on every use, with one idempotent retry window.
///
/// The grant holds the hash of the current refresh token, the hash of the one it replaced, when
/// the rotation happened, and the successor pair sealed under a key only the replaced token
/// derives. Presenting:
/// - the current token rotates: new pair, stored in one transaction with the grant's
///   compare-and-swap on its version (one store write);
/// - the replaced token within `refreshGrace` seconds (and before its successor was itself
///   rotated) returns the same successor pair again, never a new branch;
/// - anything else the grant ever issued revokes the whole grant.
/// Two concurrent refreshes with the same token therefore both get the same pair.
///
/// The scope of a refresh is at most the presented refresh token's (never the grant's once a
/// refresh narrowed it): a `scope` parameter may narrow it further, and none keeps it. RFC 6749 §6
/// would allow going back to the grant's scope; SECURITY.md promises a narrowed connection stays
/// narrowed.
struct RefreshRotation: Sendable {
    let context: OAuthContext
    let grants: Grants
    let issuer: TokenIssuer

    func refresh(token: String, scope: String?, resource: String?, client: RegisteredClient) async throws(OAuthError)
        -> IssuedTokens
    {
        let invalid = OAuthError(.invalidGrant, "The refresh token is invalid, expired or revoked.")
        guard TokenKind.refreshToken.accepts(token) else { throw invalid }
        guard let (item, hash) = try await context.find(context.hasher.candidates(token), key: OAuthKeys.refreshToken),
            let record = TokenRecord(item: item), record.clientID == client.id
        else { throw invalid }
        guard client.mayRefresh else {
            throw OAuthError(.unauthorizedClient, "This client did not register the refresh_token grant.")
        }
        for _ in 0..<4 {
            guard let grantItem = try await context.get(OAuthKeys.grant(record.grantID)),
                var grant = GrantRecord(item: grantItem), grant.state == .active, grant.clientID == client.id
            else { throw invalid }
            if let resource, ResourceIndicator.canonical(resource) != grant.resource {
                throw OAuthError(.invalidTarget, "resource does not match the grant.")
            }
            // What the presented refresh token carries, within the grant.
            let ceiling = record.scope.tokens.filter { grant.scope.tokens.contains($0) }
            guard !ceiling.isEmpty else { throw invalid }
            var narrowed = ScopeSet(text: ceiling.joined(separator: " "))
            if let scope, !scope.isEmpty {
                guard let tokens = ScopeSet.parse(scope),
                    let requested = ScopeSet.resolve(tokens, supported: ceiling),
                    !requested.tokens.isEmpty
                else { throw OAuthError(.invalidScope, "A refresh may only narrow the granted scope.") }
                narrowed = requested
            }
            let now = context.now
            // The person's chosen lifetime (issue 44) is the grant's end: past it the grant goes.
            // The store already hides an item past its expiry; this holds even where a clock lags.
            guard grant.endsAt > now else {
                try await grants.revoke(grant.id, reason: "lifetime ended")
                throw invalid
            }
            if hash == grant.currentRefresh {
                let secret = try context.unbind(record.bound, token: token, grant: grant.context)
                let (issued, tokenWrites) = try issuer.mint(
                    grant: grant, secret: secret, scope: narrowed, withRefresh: true,
                    generation: grant.refreshGeneration + 1)
                grant.refreshGeneration += 1
                grant.previousRefresh = hash
                grant.currentRefresh = issued.refreshHash
                grant.rotatedAt = now
                grant.successor = issued.sealed(under: token, grantID: grant.id, hasher: context.hasher)
                // The new tokens and the grant that names them, in one write: all or nothing.
                let rotation = StoreWrite.update(
                    grantItem.key, ItemUpdate(set: grant.attributes), condition: .versionEquals(grantItem.version))
                if try await context.transact(tokenWrites + [rotation]) {
                    context.events(.refreshRotated(grantID: grant.id))
                    return issued
                }
                // The transaction may have landed with only its answer lost (a store that reset or
                // hung the connection, and the client's retry then failed the condition): the
                // rotation is then the grant's, its tokens stored with it.
                if let after = try await context.get(grantItem.key), let landed = GrantRecord(item: after),
                    landed.currentRefresh == issued.refreshHash
                {
                    context.events(.refreshRotated(grantID: grant.id))
                    return issued
                }
                // Someone else changed the grant first (a concurrent refresh, a re-seal); nothing of
                // this rotation was written: look again.
                continue
            }
            if hash == grant.previousRefresh, let rotatedAt = grant.rotatedAt,
                now - rotatedAt <= context.configuration.lifetimes.refreshGrace.wholeSeconds,
                let successor = grant.successor,
                var again = IssuedTokens.open(successor, with: token, grantID: grant.id, hasher: context.hasher)
            {
                again.expiresIn = max(1, again.expiresIn - (now - rotatedAt))
                context.events(.refreshRetried(grantID: grant.id))
                return again
            }
            context.events(.refreshReuse(grantID: grant.id))
            try await grants.revoke(grant.id, reason: "refresh token reuse")
            throw invalid
        }
        throw OAuthError.storeUnavailable
    }
}
