import RelayStore

/// Which unused client an admission past the day's share evicts (`ClientCapacity.admit`), in
/// order, so that a flood pays with its own clients:
/// 1. **own**: the registrant's own oldest unused client (`LIMIT#unused-by#<owner>`). A
///    self-registered client's registrant goes here first: one address flooding new metadata
///    only ever replaces its own clients and holds at most a day's share. A known platform's
///    registration (every redirect on the list, `ClientRegistry`) comes here after *stale*, so a
///    platform registering thousands of connectors an hour keeps its own for as long as
///    abandoned clients are there to go first.
/// 2. **stale**: the oldest unused client of anyone, when it is older than
///    `ClientCapacity.freshness` (an hour): nobody finished connecting with it in that time.
/// 3. **repeat owner**: the oldest unused client of another owner that registered two or more
///    new clients in this hour or the last (`LIMIT#repeat-owners#<s|p>#<hour>`), self-registering ones
///    before known-platform ones: a flood from many addresses, each used more than once, pays
///    with its own clients.
/// 4. **oldest**: the oldest unused client of anyone. Only a flood from more distinct addresses
///    within the hour than the store holds fresh clients reaches here (each of them used once);
///    a client registered before such a flood goes first (docs/threat-model.md).
///
/// Used clients and clients the operator added are never evicted. Each step costs one query (a
/// page of 64 entries, oldest first) and, for the client it evicts, one read and three deletes;
/// entries of clients that are gone or used are dropped on the way (at most 500 per eviction),
/// and owners found with nothing left leave the repeat list, so no eviction reads past work an
/// earlier one already did (issue 41, item 5: the cost does not grow with the clients stored).
extension ClientCapacity {
    /// Who is registering a new client: a keyed hash of the address block, and whether every
    /// redirect is a known platform's callback or one the operator listed.
    struct Owner: Sendable, Equatable {
        var key: String
        var platform: Bool
    }

    /// Evicts one unused client for a new one of `owner`; the tier it came from, or nil when
    /// nothing could be evicted.
    func evict(for owner: Owner, now: Int) async throws(OAuthError) -> EvictionTier? {
        var budget = 500
        if !owner.platform, try await evictOwned(by: owner.key, budget: &budget) { return .own }
        if try await evictOldest(before: now - Self.freshness, budget: &budget) { return .stale }
        if owner.platform, try await evictOwned(by: owner.key, budget: &budget) { return .own }
        let hour = now - now % 3600
        for kind in ["s", "p"] {
            for window in [hour, hour - 3600] {
                if try await evictRepeatOwner(kind: kind, hour: window, except: owner.key, budget: &budget) {
                    return .repeatOwner
                }
            }
        }
        if try await evictOldest(before: nil, budget: &budget) { return .oldest }
        return nil
    }

    private enum Attempt {
        case evicted
        /// The entry named a client that is gone, used or the operator's: it was dropped.
        case dropped
        /// Another admission is evicting it, or it changed meanwhile: the next one.
        case busy
    }

    /// Evicts the client of one index entry if it is still unused.
    private func attempt(recordID: String, issuedAt: Int) async -> Attempt {
        guard evicting.withLock({ $0.insert(recordID).inserted }) else { return .busy }
        defer { evicting.withLock { _ = $0.remove(recordID) } }
        let clientKey = OAuthKeys.client(recordID)
        guard let client = try? await context.get(clientKey) else {
            await indexUsed(recordID: recordID, issuedAt: issuedAt, owner: nil)
            return .dropped
        }
        let owner = client.attributes.string("ow")
        guard client.attributes["used"] == nil, client.attributes["admin"] == nil else {
            await indexUsed(recordID: recordID, issuedAt: issuedAt, owner: owner)
            return .dropped
        }
        // Losing a race (a renewal, a first use, another instance's eviction) is no error, only a
        // reason to try the next one.
        guard (try? await context.delete(clientKey, condition: .versionEquals(client.version))) != nil else {
            return .busy
        }
        await indexUsed(recordID: recordID, issuedAt: issuedAt, owner: owner)
        let day = issuedAt - issuedAt % Self.window
        // It left its day's unused clients.
        _ = try? await context.increment(keys(day).refused, expiresAt: expiry(day))
        return .evicted
    }

    /// Walks one index partition oldest first, evicting the first client it can; stops at an
    /// entry created at or after `before`, or when `budget` entries were dropped. `.empty` when the
    /// partition's first page held nothing.
    private func walk(
        _ pk: String, before: Int?, budget: inout Int
    ) async throws(OAuthError) -> (evicted: Bool, empty: Bool, reachedCutoff: Bool) {
        var cursor: QueryCursor?
        var first = true
        while budget > 0 {
            let entries = try await context.query(Query(pk: pk, limit: 64, cursor: cursor))
            if entries.isEmpty { return (false, first, false) }
            first = false
            for entry in entries {
                guard let (issuedAt, recordID) = Self.parseSortKey(entry.key.sk) else { continue }
                if let before, issuedAt >= before { return (false, false, true) }
                switch await attempt(recordID: recordID, issuedAt: issuedAt) {
                case .evicted: return (true, false, false)
                case .dropped:
                    budget -= 1
                    if budget <= 0 { return (false, false, false) }
                case .busy: continue
                }
            }
            // A full page whose entries all went or are being evicted by others here: the next page.
            guard entries.count == 64, let last = entries.last else { return (false, false, false) }
            cursor = QueryCursor(lastSortKey: last.key.sk)
        }
        return (false, false, false)
    }

    /// Evicts `owner`'s oldest unused client.
    private func evictOwned(by owner: String, budget: inout Int) async throws(OAuthError) -> Bool {
        try await walk("LIMIT#unused-by#\(owner)", before: nil, budget: &budget).evicted
    }

    /// Evicts the oldest unused client created before `before` (nil: any), oldest day first.
    private func evictOldest(before: Int?, budget: inout Int) async throws(OAuthError) -> Bool {
        let today = context.now - context.now % Self.window
        let days = (context.configuration.lifetimes.unusedClient.wholeSeconds + Self.window - 1) / Self.window
        var day = max(oldestDay.withLock { $0 }, today - days * Self.window)
        while day <= today, budget > 0 {
            if let before, day >= before { return false }
            let result = try await walk("LIMIT#unused-clients#\(day)", before: before, budget: &budget)
            if result.evicted { return true }
            if result.reachedCutoff { return false }
            let next = day + Self.window
            // A day whose first page is empty holds no unused client: later evictions skip it.
            if result.empty { oldestDay.withLock { $0 = max($0, min(next, today)) } }
            day = next
        }
        return false
    }

    /// Evicts the oldest unused client of one of the hour's repeat owners of `kind` (`s`
    /// self-registered, `p` known platform), other than `except`. An owner with nothing left
    /// leaves the list.
    private func evictRepeatOwner(
        kind: String, hour: Int, except: String, budget: inout Int
    ) async throws(OAuthError) -> Bool {
        var cursor: QueryCursor?
        while budget > 0 {
            let owners = try await context.query(
                Query(pk: Self.repeatOwnersPartition(kind: kind, hour: hour), limit: 64, cursor: cursor))
            for entry in owners where entry.key.sk != except {
                let result = try await walk("LIMIT#unused-by#\(entry.key.sk)", before: nil, budget: &budget)
                if result.evicted { return true }
                if result.empty {
                    _ = try? await context.delete(entry.key)
                    budget -= 1
                }
                if budget <= 0 { return false }
            }
            guard owners.count == 64, let last = owners.last else { return false }
            cursor = QueryCursor(lastSortKey: last.key.sk)
        }
        return false
    }
}
