/// A person's connections, as the connections page shows and ends them. Everything goes through
/// the user's index (`USER#…/GRANT#…`) and each grant's own record, whose `user` decides
/// ownership: a session can never see or end another person's grant, whatever ID a form names.
struct Connections: Sendable {
    let context: OAuthContext
    let grants: Grants

    /// The live connections of `userID`, newest first: active grants that have not ended. A grant
    /// still waiting for its code to be redeemed is not a connection yet ("End all" ends it too).
    func list(userID: String) async throws(OAuthError) -> [GrantRecord] {
        let now = context.now
        var records: [GrantRecord] = []
        for item in try await context.queryAll(OAuthKeys.userGrants(userID)) {
            let grantID = String(item.sk.dropFirst("GRANT#".count))
            guard let grant = try await grants.load(grantID), grant.userID == userID, grant.state == .active,
                grant.endsAt > now
            else { continue }
            records.append(grant)
        }
        return records.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
    }

    /// Ends one connection of `userID` and every token it issued; false when there is no such
    /// grant of theirs (already ended, or another person's).
    func end(grantID: String, userID: String) async throws(OAuthError) -> Bool {
        guard (1...64).contains(grantID.utf8.count), !grantID.contains("#"),
            let grant = try await grants.load(grantID), grant.userID == userID
        else { return false }
        return try await grants.revoke(grantID, reason: Self.reason)
    }

    /// Whether `grantID` is a live connection of `userID` that waits for an iCloud sign-in (issue 39):
    /// only then may the connections page make it a link. False for another person's grant, an ended
    /// one, or one whose sign-in has come back meanwhile.
    func waitsForSignIn(grantID: String, userID: String) async throws(OAuthError) -> Bool {
        guard (1...64).contains(grantID.utf8.count), !grantID.contains("#"),
            let grant = try await grants.load(grantID)
        else { return false }
        return grant.userID == userID && grant.state == .active && grant.endsAt > context.now
            && grant.signInSince != nil
    }

    /// Ends every connection of `userID`; returns how many there were.
    func endAll(userID: String) async throws(OAuthError) -> Int {
        let count = try await grants.revokeAll(userID: userID, reason: Self.reason)
        context.events(.disconnected(grants: count))
        return count
    }

    /// The audit reason of a connection the person ended.
    static let reason = "ended by the user"
}
