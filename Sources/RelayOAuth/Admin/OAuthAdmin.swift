import RelayCrypto
import RelayStore
import RelaySync

/// The operator's actions on the authorization server's records, for `mustdo-relayctl` and the
/// relay's periodic grants count: list, show and delete clients, purge unused ones, list and
/// revoke grants, disconnect a user, count what is stored. Listing scans the store
/// (`Store.scan`), which is expensive: never on a request path.
///
/// Nothing it returns holds a token, a hash of one, a secret or a sealed blob. A revocation takes
/// effect at once in the store; a running relay may still accept a token it validated in the last
/// `RELAY_OAUTH_VALIDATION_CACHE_TTL` seconds.
package struct OAuthAdmin: Sendable {
    /// The kinds `statistics()` counts, in display order: the partition-key prefix before `#`,
    /// with a grant's token index entries (`GRANT_INDEX`) apart from the grant, and `OTHER`.
    package static var itemKinds: [String] { OAuthKeys.kinds }

    let context: OAuthContext
    private let grants: Grants
    /// The flows report store failures only through the audit hook; the last one is kept here so
    /// an operator sees what failed, not just "try again".
    private let lastFailure = Locked<String?>(nil)

    /// An admin over `store` for a command-line tool.
    package init(
        store: any Store, clock: any WallClock = SystemClock(),
        events: @escaping @Sendable (OAuthEvent) -> Void = { _ in }
    ) {
        // No admin operation reads a setting, hashes a token or binds one: the issuer and the
        // secrets are placeholders and the binder refuses, so a mistake here fails loudly.
        let context = OAuthContext(
            configuration: OAuthConfiguration(issuer: "https://relayctl.invalid"), store: store,
            hasher: TokenHasher(secrets: .random()), binder: RefusingBinder(), clock: clock, events: events)
        self.init(context: context)
    }

    /// The admin of a running server (same store and audit hook).
    init(context: OAuthContext) {
        let lastFailure = self.lastFailure
        let events = context.events
        self.context = OAuthContext(
            configuration: context.configuration, store: context.store, hasher: context.hasher,
            binder: context.binder, clock: context.clock,
            events: { event in
                if case .failure(let reason) = event { lastFailure.withLock { $0 = reason } }
                events(event)
            })
        grants = Grants(context: self.context)
    }

    /// The user ID for a CloudKit user record name: the HMAC the relay computes at sign-in
    /// (`AuthorizationServer.userID(recordName:)`), which `grants list --user` and
    /// `users disconnect` take.
    package static func userID(recordName: String, userIDKey: SymmetricKey) -> String {
        TokenHasher(secrets: OAuthSecrets(currentPepper: .init(version: 0, key: .random()), userIDKey: userIDKey))
            .userID(recordName: recordName)
    }

    // MARK: clients

    /// Every registered client and cached client metadata document, oldest first.
    package func clients() async throws(OAuthError) -> [ClientSummary] {
        var clients: [ClientSummary] = []
        for prefix in [OAuthKeys.clientPrefix, OAuthKeys.metadataDocumentPrefix] {
            clients += try await scanAll(prefix).compactMap(ClientSummary.init(item:))
        }
        return clients.sorted { ($0.registeredAt, $0.id) < ($1.registeredAt, $1.id) }
    }

    /// One client by ID (a metadata-document client by its URL), or nil.
    package func client(_ id: String) async throws(OAuthError) -> ClientSummary? {
        guard let key = Self.clientKey(id) else { return nil }
        return try await run { () throws(OAuthError) in try await context.get(key).flatMap(ClientSummary.init(item:)) }
    }

    /// Deletes a client and revokes every grant it holds (their tokens die with them). A
    /// metadata-document client can come back: the next `/authorize` fetches its document again.
    /// Registrations of the same metadata share one record, so deleting a client (by its ID or by
    /// one registration's `<record>.<nonce>` ID) ends every registration of it.
    package func deleteClient(_ id: String) async throws(OAuthError) -> ClientDeletion {
        guard let key = Self.clientKey(id) else { return ClientDeletion(clientDeleted: false, grantsRevoked: 0) }
        // The client first, so no new grant can start while its old ones are revoked.
        let deleted = try await run { () throws(OAuthError) in try await context.delete(key) != nil }
        var revoked = 0
        // A shared confidential record's registrations each have their own ID, `<record>.<nonce>`.
        let recordID = Self.recordID(id)
        for item in try await grantItems() where item.attributes.string("client").map(Self.recordID) == recordID {
            if try await revoke(item, reason: "client deleted by the operator") { revoked += 1 }
        }
        return ClientDeletion(clientDeleted: deleted, grantsRevoked: revoked)
    }

    /// Registered clients that never completed a token exchange, registered before `cutoff`
    /// (seconds since the epoch) and holding no grant: what `purgeUnusedClients` deletes.
    package func unusedClients(registeredBefore cutoff: Int) async throws(OAuthError) -> [ClientSummary] {
        try await unusedClientItems(registeredBefore: cutoff).map(\.summary)
    }

    /// Deletes the clients `unusedClients` lists, each only if it did not change meanwhile (a
    /// client that connects someone during the purge is kept); returns how many were deleted.
    /// Unused clients also expire by themselves after `RELAY_OAUTH_UNUSED_CLIENT_TTL`.
    package func purgeUnusedClients(registeredBefore cutoff: Int) async throws(OAuthError) -> Int {
        var deleted = 0
        for (_, item) in try await unusedClientItems(registeredBefore: cutoff) {
            let gone = try await run { () throws(OAuthError) in
                try await context.delete(item.key, condition: .versionEquals(item.version)) != nil
            }
            if gone { deleted += 1 }
        }
        return deleted
    }

    // MARK: grants and users

    /// Every grant (a whole-store scan), or one user's grants (through the user's index), oldest first.
    package func grants(userID: String? = nil) async throws(OAuthError) -> [GrantSummary] {
        var records: [GrantRecord] = []
        if let userID {
            let index = try await run { () throws(OAuthError) in
                try await context.queryAll(OAuthKeys.userGrants(userID))
            }
            for item in index {
                let grantID = String(item.sk.dropFirst("GRANT#".count))
                if let grant = try await run({ () throws(OAuthError) in try await grants.load(grantID) }) {
                    records.append(grant)
                }
            }
        } else {
            records = try await grantItems().compactMap(GrantRecord.init(item:))
        }
        return records.map(GrantSummary.init).sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// One grant, or nil.
    package func grant(_ id: String) async throws(OAuthError) -> GrantSummary? {
        guard Self.isPlausibleID(id) else { return nil }
        return try await run { () throws(OAuthError) in try await grants.load(id).map(GrantSummary.init) }
    }

    /// Revokes a grant and every token it issued; returns whether it existed.
    package func revokeGrant(_ id: String) async throws(OAuthError) -> Bool {
        guard Self.isPlausibleID(id) else { return false }
        return try await run { () throws(OAuthError) in try await grants.revoke(id, reason: "revoked by the operator") }
    }

    /// Revokes every grant of a user, as the disconnect page does, then scans for any grant of
    /// that user missing from the user's index; returns how many grants were revoked.
    package func disconnect(userID: String) async throws(OAuthError) -> Int {
        guard Self.isPlausibleID(userID) else { return 0 }
        var count = try await run { () throws(OAuthError) in
            try await grants.revokeAll(userID: userID, reason: "disconnected by the operator")
        }
        for item in try await grantItems() where item.attributes.string("user") == userID {
            if try await revoke(item, reason: "disconnected by the operator") { count += 1 }
        }
        return count
    }

    /// What each connection did in the last 30 UTC days (issue 44): per grant, its user ID (the
    /// HMAC, nothing more of the person), client and days with counts, oldest grant first. Every
    /// grant's (a whole-store scan), or one user's (through the user's index).
    package func activity(userID: String? = nil) async throws(OAuthError) -> [GrantActivity] {
        let today = UsageRecorder.day(context.now)
        var result: [GrantActivity] = []
        for grant in try await grants(userID: userID) {
            let days = try await run { () throws(OAuthError) in
                try await context.queryAll(OAuthKeys.grantActivity(grant.id))
            }
            .compactMap(DayActivity.init(item:))
            .filter { $0.day > today - ActivityLog.days && !$0.counts.isEmpty }
            .sorted { $0.day < $1.day }
            result.append(GrantActivity(grantID: grant.id, userID: grant.userID, clientID: grant.clientID, days: days))
        }
        return result
    }

    // MARK: counts

    /// Live items per kind (`itemKinds`), one page at a time.
    package func statistics() async throws(OAuthError) -> [String: Int] {
        var counts: [String: Int] = [:]
        for kind in OAuthKeys.kinds { counts[kind] = 0 }
        try await scanPages("") { items in
            for item in items { counts[OAuthKeys.kind(of: item), default: 0] += 1 }
        }
        return counts
    }

    /// Active grants that have not ended (the `relay_oauth_active_grants` gauge).
    package func activeGrantCount() async throws(OAuthError) -> Int {
        let now = context.now
        var count = 0
        try await scanPages(OAuthKeys.grantPrefix) { items in
            count +=
                items.filter { item in
                    item.sk == OAuthKeys.meta && item.attributes.string("state") == GrantRecord.State.active.rawValue
                        && (item.attributes.int("ends") ?? 0) > now
                }.count
        }
        return count
    }

    // MARK: helpers

    private func unusedClientItems(registeredBefore cutoff: Int) async throws(OAuthError)
        -> [(summary: ClientSummary, item: Item)]
    {
        let withGrants = Set(try await grantItems().compactMap { $0.attributes.string("client").map(Self.recordID) })
        return try await scanAll(OAuthKeys.clientPrefix).compactMap { item in
            // A pre-registered client (`clients add`) waits for its first use as long as it takes.
            guard let client = ClientSummary(item: item), client.lastUsedAt == nil, client.registeredAt < cutoff,
                !withGrants.contains(client.id), item.attributes["admin"]?.boolValue != true
            else { return nil }
            return (client, item)
        }
    }

    /// Every grant's `META` item.
    private func grantItems() async throws(OAuthError) -> [Item] {
        try await scanAll(OAuthKeys.grantPrefix).filter { $0.sk == OAuthKeys.meta }
    }

    private func revoke(_ grantItem: Item, reason: String) async throws(OAuthError) -> Bool {
        let grantID = String(grantItem.pk.dropFirst(OAuthKeys.grantPrefix.count))
        return try await run { () throws(OAuthError) in try await grants.revoke(grantID, reason: reason) }
    }

    private func scanAll(_ prefix: String) async throws(OAuthError) -> [Item] {
        do {
            return try await context.store.scanAll(pkPrefix: prefix, maximumItems: 10_000_000)
        } catch {
            throw OAuthError(.temporarilyUnavailable, "\(error)")
        }
    }

    private func scanPages(_ prefix: String, _ body: ([Item]) -> Void) async throws(OAuthError) {
        do {
            try await context.store.scanPages(pkPrefix: prefix) { items in body(items) }
        } catch {
            throw OAuthError(.temporarilyUnavailable, "\(error)")
        }
    }

    /// Runs a flow step, replacing the generic "try again" of a store failure with what failed.
    private func run<T>(_ body: () async throws(OAuthError) -> T) async throws(OAuthError) -> T {
        lastFailure.withLock { $0 = nil }
        do {
            return try await body()
        } catch {
            guard error.code == .temporarilyUnavailable, let reason = lastFailure.withLock({ $0 }) else { throw error }
            throw OAuthError(.temporarilyUnavailable, reason)
        }
    }

    /// The item of a client ID: a DCR record, or the cached document of a metadata-document URL.
    /// A per-registration ID (`<record>.<nonce>`) names its shared record.
    private static func clientKey(_ id: String) -> ItemKey? {
        if isURL(id) {
            return id.utf8.count <= 2048 ? OAuthKeys.metadataDocument(Base64URL.encode(SHA256.hash(id))) : nil
        }
        return isPlausibleID(id) ? OAuthKeys.client(recordID(id)) : nil
    }

    /// The record a DCR client ID is stored under: the ID, or its part before `.`.
    private static func recordID(_ clientID: String) -> String {
        isURL(clientID) ? clientID : String(clientID.prefix { $0 != "." })
    }

    private static func isURL(_ id: String) -> Bool { id.hasPrefix("https://") || id.hasPrefix("http://") }

    /// IDs the server makes are short base64url; anything else cannot name a record.
    private static func isPlausibleID(_ id: String) -> Bool {
        (1...256).contains(id.utf8.count) && !id.contains("#")
    }
}

/// The admin never binds tokens; a binder that refuses makes a mistake visible.
private struct RefusingBinder: TokenBinder {
    struct Refused: Error {}

    func bind(_ secret: GrantSecret, to token: String, grant: GrantContext) throws -> [UInt8] { throw Refused() }

    func unbind(_ bound: [UInt8], token: String, grant: GrantContext) throws -> GrantSecret { throw Refused() }
}
