import RelayStore

/// `grant_type=authorization_code`. Everything is verified before anything is written: a wrong
/// client, redirect URI, PKCE verifier or resource leaves the code as it was. Then one conditional
/// write wins the code; any later presentation of a redeemed code revokes its grant
/// (RFC 6749 §10.5).
struct CodeExchange: Sendable {
    let context: OAuthContext
    let grants: Grants
    let issuer: TokenIssuer

    func exchange(
        code: String, redirectURI: String?, verifier: String?, resource: String?, client: RegisteredClient
    ) async throws(OAuthError) -> IssuedTokens {
        let invalid = OAuthError(.invalidGrant, "The authorization code is invalid, expired or already used.")
        guard TokenKind.code.accepts(code) else { throw invalid }
        guard let (item, _) = try await context.find(context.hasher.candidates(code), key: OAuthKeys.code),
            var record = CodeRecord(item: item), record.clientID == client.id
        else { throw invalid }
        if record.redirectURIWasExplicit || redirectURI != nil {
            guard redirectURI == record.redirectURI else {
                throw OAuthError(.invalidGrant, "redirect_uri does not match the authorization request.")
            }
        }
        guard let verifier else { throw OAuthError(.invalidRequest, "code_verifier is required.") }
        guard PKCE.verify(verifier: verifier, challenge: record.codeChallenge) else {
            throw OAuthError(.invalidGrant, "The PKCE code_verifier does not match.")
        }
        if let resource, ResourceIndicator.canonical(resource) != record.resource {
            throw OAuthError(.invalidTarget, "resource does not match the authorization request.")
        }
        // Verified: from here on, a second presentation is a replay.
        switch record.state {
        case .redeemed:
            try await replayed(record)
            throw invalid
        case .redeeming:
            throw invalid
        case .issued:
            break
        }
        let claim = ItemUpdate(set: ["state": .string(CodeRecord.State.redeeming.rawValue)])
        guard let claimed = try await context.update(item.key, claim, condition: .versionEquals(item.version)) else {
            if let again = try await context.get(item.key).flatMap(CodeRecord.init(item:)), again.state == .redeemed {
                try await replayed(again)
            }
            throw invalid
        }
        record.version = claimed.version
        do {
            let tokens = try await redeem(record, code: code, client: client)
            _ = try await context.update(
                item.key,
                ItemUpdate(
                    set: ["state": .string(CodeRecord.State.redeemed.rawValue)], remove: ["bound"],
                    expiresAt: .set(context.now + context.configuration.lifetimes.redeemedCode.wholeSeconds)))
            context.events(.codeRedeemed(grantID: record.grantID))
            return tokens
        } catch {
            // A half-finished redemption leaves no usable grant behind.
            _ = try? await grants.revoke(record.grantID, reason: "redemption failed")
            throw error
        }
    }

    /// Issues the tokens and activates the grant.
    private func redeem(_ record: CodeRecord, code: String, client: RegisteredClient) async throws(OAuthError)
        -> IssuedTokens
    {
        guard let bound = record.bound else { throw OAuthError(.invalidGrant, "The authorization code is invalid.") }
        var secret: GrantSecret?
        for _ in 0..<4 {
            guard let item = try await context.get(OAuthKeys.grant(record.grantID)),
                var grant = GrantRecord(item: item),
                grant.state == .pending
            else { throw OAuthError(.invalidGrant, "The grant no longer exists.") }
            if secret == nil { secret = try context.unbind(bound, token: code, grant: grant.context) }
            guard let secret else { throw OAuthError(.invalidGrant) }
            let (tokens, tokenWrites) = try issuer.mint(
                grant: grant, secret: secret, scope: record.scope, withRefresh: client.mayRefresh, generation: 0)
            grant.state = .active
            grant.currentRefresh = tokens.refreshHash
            // The tokens and the grant that names them, in one write: all or nothing.
            let activation = StoreWrite.update(
                item.key, ItemUpdate(set: grant.attributes, expiresAt: .set(grant.endsAt)),
                condition: .versionEquals(item.version))
            if try await context.transact(tokenWrites + [activation]) {
                _ = try await context.update(
                    OAuthKeys.userGrant(grant.userID, grantID: grant.id), ItemUpdate(expiresAt: .set(grant.endsAt)))
                return tokens
            }
            // The grant changed under us (re-sealed, or revoked); nothing was written: look again.
        }
        throw OAuthError.storeUnavailable
    }

    private func replayed(_ record: CodeRecord) async throws(OAuthError) {
        context.events(.codeReplay(grantID: record.grantID))
        try await grants.revoke(record.grantID, reason: "authorization code replay")
    }
}
