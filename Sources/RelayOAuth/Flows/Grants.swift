import RelayStore

/// Creating and deleting grants. Deleting a grant removes its `META` first, which already kills
/// every token (validation requires a live, active grant), then its tokens through the grant's
/// index partition, then the user index entry.
struct Grants: Sendable {
    let context: OAuthContext

    /// A pending grant for `request` with its authorization code. The code carries the grant secret
    /// bound to it; the grant becomes active (and long-lived) only when the code is redeemed. `label`
    /// is how the consent page showed the app (kept for the connections page and `grants list`).
    func create(
        userID: String, request: AuthorizationRequest, label: ConnectionLabel?, sealer: any GrantSealer,
        webAuthToken: String, lifetime: ConnectionLifetime? = nil
    ) async throws(OAuthError) -> (grantID: String, code: String) {
        let grantID = context.randomID()
        let sealed: SealedCloudKitToken
        do {
            sealed = try await sealer.seal(
                webAuthToken: webAuthToken, grant: GrantContext(userID: userID, grantID: grantID))
        } catch {
            context.events(.failure("sealing failed"))
            throw OAuthError(.temporarilyUnavailable, "The connection could not be stored; try again.")
        }
        let now = context.now
        let lifetimes = context.configuration.lifetimes
        let grant = GrantRecord(
            id: grantID, userID: userID, request: request, label: label, sealed: sealed.sealed, now: now,
            lifetime: lifetimes.grant.wholeSeconds, chosen: lifetime)
        let code = TokenKind.code.generate()
        let codeHash = context.hasher.hash(code)
        let record = CodeRecord(
            grantID: grantID, request: request, bound: try context.bind(sealed.secret, to: code, grant: grant.context),
            pepperVersion: codeHash.version)
        // The pending grant outlives its code by a minute, so a redemption near the end still finds it.
        let pendingUntil = now + lifetimes.code.wholeSeconds + 60
        guard
            try await context.put(
                OAuthKeys.grant(grantID), grant.attributes, expiresAt: pendingUntil, condition: .absent) != nil
        else { throw OAuthError(.serverError, "A grant identifier collided.") }
        _ = try await context.put(
            OAuthKeys.userGrant(userID, grantID: grantID), ["client": .string(request.clientID)],
            expiresAt: pendingUntil)
        _ = try await context.put(
            OAuthKeys.code(codeHash.hash), record.attributes, expiresAt: now + lifetimes.code.wholeSeconds,
            condition: .absent)
        context.events(.grantCreated(grantID: grantID, clientID: request.clientID))
        return (grantID, code)
    }

    /// The live grant, or nil.
    func load(_ grantID: String) async throws(OAuthError) -> GrantRecord? {
        try await context.get(OAuthKeys.grant(grantID)).flatMap(GrantRecord.init(item:))
    }

    /// Deletes a grant and everything it issued, and its activity counts; returns whether a grant
    /// was there.
    @discardableResult
    func revoke(_ grantID: String, reason: String) async throws(OAuthError) -> Bool {
        let removed = try await context.delete(OAuthKeys.grant(grantID))
        try await deleteTokens(of: grantID)
        // The counts go with the connection (issue 44); a count written after this finds no grant
        // and deletes itself (`ActivityLog`).
        for item in try await context.queryAll(OAuthKeys.grantActivity(grantID)) {
            _ = try await context.delete(item.key)
        }
        if let userID = removed?.attributes.string("user") {
            _ = try await context.delete(OAuthKeys.userGrant(userID, grantID: grantID))
        }
        if removed != nil { context.events(.grantRevoked(grantID: grantID, reason: reason)) }
        return removed != nil
    }

    /// Deletes every grant of a user; returns how many there were.
    func revokeAll(userID: String, reason: String) async throws(OAuthError) -> Int {
        var count = 0
        for item in try await context.queryAll(OAuthKeys.userGrants(userID)) {
            let grantID = String(item.sk.dropFirst("GRANT#".count))
            if try await revoke(grantID, reason: reason) { count += 1 }
            _ = try await context.delete(item.key)
        }
        return count
    }

    /// Deletes the token items listed in a grant's index partition, and the index items.
    func deleteTokens(of grantID: String) async throws(OAuthError) {
        for query in OAuthKeys.grantTokens(grantID) {
            for item in try await context.queryAll(query) {
                if let entry = TokenIndexEntry(sortKey: item.sk) { _ = try await context.delete(entry.itemKey) }
                _ = try await context.delete(item.key)
            }
        }
    }

    /// The writes of a token item and its index entry under the grant, for one transaction with
    /// the grant's change.
    func tokenWrites(_ record: TokenRecord, kind: TokenKind) -> [StoreWrite] {
        let entry: TokenIndexEntry = kind == .refreshToken ? .refresh(record.hash) : .access(record.hash)
        return [
            .put(OAuthKeys.grantIndex(record.grantID, token: entry), attributes: [:], expiresAt: record.expiresAt),
            .put(entry.itemKey, attributes: record.attributes, expiresAt: record.expiresAt, condition: .absent),
        ]
    }

    /// Removes one token item and its index entry.
    func removeToken(_ entry: TokenIndexEntry, grantID: String) async throws(OAuthError) {
        _ = try await context.delete(entry.itemKey)
        _ = try await context.delete(OAuthKeys.grantIndex(grantID, token: entry))
    }
}
