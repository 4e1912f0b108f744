import RelayStore
import RelaySync

/// The cap on registered clients that nobody has used yet, held across instances through three
/// counters per day in the store: new clients asked for that day (`LIMIT#clients-created#*`),
/// those of them refused or evicted (`LIMIT#clients-refused#*`), and those that completed a token
/// exchange since (`LIMIT#clients-used#*`). Created less refused less used is the day's unused
/// clients, whichever instance made them.
///
/// An unused client lives `unusedClient` seconds (30 days), so unused clients created more than
/// `days = ⌈unusedClient / 86400⌉` whole days ago are gone. Each day may hold `maximum / (days +
/// 1)` of them. Past the day's share a new client is **not refused** (issue 41: 3,222 junk
/// registrations from 162 addresses used to freeze registration for everyone until the next UTC
/// day): the oldest unused client is evicted instead, found through an index of unused clients by
/// creation time (`LIMIT#unused-clients#<day>` / `<created>#<record>`, one entry per unused
/// client, removed when it is first used). So storage stays bounded (each admission past the
/// share is paid for by one eviction) and a flood only shortens how long a fresh, never-used
/// client waits before it may be evicted: a person connects within minutes, and the flood must
/// outnumber every unused client stored after theirs to reach it. Only when there is nothing to
/// evict (counters out of step with the index) is a new client refused with 503.
///
/// Cost per new client: one write (created), one index write and two reads (refused, used); past
/// the share, one index query per day still holding unused clients, a read and two deletes; per
/// client's first token exchange: one write (used) and one index delete.
final class ClientCapacity: Sendable {
    static let window = 86400

    private let context: OAuthContext
    /// Unused clients allowed per day.
    let perDay: Int
    /// This instance found the day's share spent: refuse without asking the store until then.
    private let spentUntil = Locked<Int>(0)
    /// The oldest day this instance found unused clients in (earlier days were empty).
    private let oldestDay = Locked<Int>(0)
    /// Clients this instance is evicting right now: concurrent admissions pass them by instead of
    /// all racing for the same oldest one.
    private let evicting = Locked<Set<String>>([])

    init(context: OAuthContext) {
        self.context = context
        let configuration = context.configuration
        let days = (configuration.lifetimes.unusedClient + Self.window - 1) / Self.window
        perDay = max(1, configuration.maximumUnusedClients / (days + 1))
    }

    /// The window (day start) a client created now belongs to, or the seconds to wait when the
    /// day's share of unused clients is spent.
    func admit() async throws(OAuthError) -> Result<Int, Wait> {
        let now = context.now
        let start = now - now % Self.window
        let until = spentUntil.withLock { $0 }
        if until > now { return .failure(Wait(seconds: until - now)) }
        let keys = keys(start)
        let created = try await context.increment(keys.created, expiresAt: expiry(start))
        let refused = try await context.counterValue(keys.refused)
        let used = try await context.counterValue(keys.used)
        guard created - refused - used > perDay else { return .success(start) }
        if try await evictOldest(now: now) {
            context.events(.limitReached(limit: .unusedClients))
            return .success(start)
        }
        // Nothing to evict: this attempt stores nothing, so take it back out of the day's clients.
        _ = try? await context.increment(keys.refused, expiresAt: expiry(start))
        let end = start + Self.window
        // Look again within a minute: clients of this day may be used meanwhile and free room.
        spentUntil.withLock { $0 = min(end, now + 60) }
        return .failure(Wait(seconds: end - now))
    }

    /// The index entry of an unused client created at `issuedAt`.
    static func indexKey(issuedAt: Int, recordID: String) -> ItemKey {
        let day = issuedAt - issuedAt % window
        let time = String(issuedAt)
        return ItemKey(
            pk: "LIMIT#unused-clients#\(day)",
            sk: String(repeating: "0", count: max(0, 12 - time.count)) + time + "#" + recordID)
    }

    /// Records a new unused client in the eviction index (it expires with the client).
    func indexCreated(recordID: String, issuedAt: Int, expiresAt: Int) async throws(OAuthError) {
        _ = try await context.put(Self.indexKey(issuedAt: issuedAt, recordID: recordID), [:], expiresAt: expiresAt)
    }

    /// Removes a client that was used from the eviction index.
    func indexUsed(recordID: String, issuedAt: Int) async {
        _ = try? await context.delete(Self.indexKey(issuedAt: issuedAt, recordID: recordID))
    }

    /// Deletes the oldest client that is still unused, oldest day first; false when none is found.
    /// Entries whose client is gone or was used meanwhile are dropped on the way.
    private func evictOldest(now: Int) async throws(OAuthError) -> Bool {
        let today = now - now % Self.window
        let days = (context.configuration.lifetimes.unusedClient + Self.window - 1) / Self.window
        var day = max(oldestDay.withLock { $0 }, today - days * Self.window)
        var dropped = 0
        var cursor: QueryCursor?
        while day <= today, dropped < 500 {
            let entries = try await context.query(
                Query(pk: "LIMIT#unused-clients#\(day)", limit: 64, cursor: cursor))
            let firstPage = cursor == nil
            cursor = nil
            if entries.isEmpty {
                let next = day + Self.window
                // A day whose first page is empty holds no unused client: later evictions skip it.
                if firstPage { oldestDay.withLock { $0 = max($0, min(next, today)) } }
                day = next
                continue
            }
            // Oldest first. Concurrent admissions (on this instance or another) look at the same
            // oldest entries: losing a race to delete a client is not an error, only a reason to
            // try the next one.
            var claimed: String?
            for entry in entries {
                guard let mark = entry.key.sk.firstIndex(of: "#") else { continue }
                let recordID = String(entry.key.sk[entry.key.sk.index(after: mark)...])
                guard evicting.withLock({ $0.insert(recordID).inserted }) else { continue }
                if let previous = claimed { evicting.withLock { _ = $0.remove(previous) } }
                claimed = recordID
                let clientKey = OAuthKeys.client(recordID)
                if let client = try? await context.get(clientKey), client.attributes["used"] == nil,
                    client.attributes["admin"] == nil,
                    (try? await context.delete(clientKey, condition: .versionEquals(client.version))) != nil
                {
                    _ = try? await context.delete(entry.key)
                    evicting.withLock { _ = $0.remove(recordID) }
                    // It left its day's unused clients.
                    _ = try? await context.increment(keys(day).refused, expiresAt: expiry(day))
                    return true
                }
                _ = try? await context.delete(entry.key)
                dropped += 1
            }
            if let previous = claimed { evicting.withLock { _ = $0.remove(previous) } }
            // Every entry of this page is being evicted by others here: the next page.
            if claimed == nil, let last = entries.last {
                cursor = QueryCursor(lastSortKey: last.key.sk)
            }
        }
        return false
    }

    /// Counts the first token exchange of a client created in window `start`.
    func clientUsed(createdIn start: Int) async {
        guard start % Self.window == 0, start + Self.window + context.configuration.lifetimes.unusedClient > context.now
        else { return }
        _ = try? await context.increment(keys(start).used, expiresAt: expiry(start))
    }

    /// The seconds to wait, for `Retry-After`.
    struct Wait: Error, Equatable {
        var seconds: Int
    }

    private func keys(_ start: Int) -> (created: ItemKey, refused: ItemKey, used: ItemKey) {
        (
            OAuthKeys.limitCounter("clients-created", subject: "*", window: start),
            OAuthKeys.limitCounter("clients-refused", subject: "*", window: start),
            OAuthKeys.limitCounter("clients-used", subject: "*", window: start)
        )
    }

    /// A day's counters are needed while its clients may be unused and alive.
    private func expiry(_ start: Int) -> Int {
        start + Self.window + context.configuration.lifetimes.unusedClient + SharedLimiter.skewAllowance
    }
}
