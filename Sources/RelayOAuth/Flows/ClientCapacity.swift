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
/// day): one unused client is evicted instead (`ClientCapacity+Eviction`), chosen so that a flood
/// pays with its own clients and never with a client another address registered recently. So
/// storage stays bounded (each admission past the share is paid for by one eviction).
///
/// Each unused client is indexed twice, both entries removed when it is first used and expiring
/// with it: by creation time (`LIMIT#unused-clients#<day>` / `<created>#<record>`) and by who
/// registered it (`LIMIT#unused-by#<owner>` / `<created>#<record>`, the owner being a keyed hash
/// of the address block, `ClientRegistry.owner`). An owner with a second new client in an hour
/// is listed in `LIMIT#repeat-owners#<s|p>#<hour>` / `<owner>`. Only when there is nothing to evict
/// (counters out of step with the index) is a new client refused with 503.
///
/// Cost per new client: three writes (created, the two index entries), one counter write for its
/// owner (one more for an owner's second client in an hour and each after) and three reads
/// (refused, used, created again); past the share, the eviction's queries (one when a stale client is there), a
/// read and three deletes; per client's first token exchange: one write (used) and two index
/// deletes.
final class ClientCapacity: Sendable {
    static let window = 86400
    /// How long a new unused client is *fresh*: a person registers and connects within minutes, so
    /// another address's flood never evicts a client younger than this while it can evict its own
    /// or older ones.
    static let freshness = 3600

    let context: OAuthContext
    /// Unused clients allowed per day.
    let perDay: Int
    /// This instance found the day's share spent and nothing to evict: refuse without asking the
    /// store until then.
    private let spentUntil = Locked<Int>(0)
    /// The oldest day this instance found unused clients in (earlier days were empty).
    let oldestDay = Locked<Int>(0)
    /// Clients this instance is evicting right now: concurrent admissions pass them by instead of
    /// all racing for the same oldest one.
    let evicting = Locked<Set<String>>([])

    init(context: OAuthContext) {
        self.context = context
        let configuration = context.configuration
        let days = (configuration.lifetimes.unusedClient.wholeSeconds + Self.window - 1) / Self.window
        perDay = max(1, configuration.maximumUnusedClients / (days + 1))
    }

    /// The window (day start) a client created now by `owner` belongs to, or the seconds to wait
    /// when the day's share of unused clients is spent and nothing can be evicted.
    func admit(owner: Owner) async throws(OAuthError) -> Result<Int, Wait> {
        let now = context.now
        let start = now - now % Self.window
        let until = spentUntil.withLock { $0 }
        if until > now { return .failure(Wait(seconds: until - now)) }
        let keys = keys(start)
        let created = try await context.increment(keys.created, expiresAt: expiry(start))
        try await noteOwner(owner, now: now)
        let refused = try await context.counterValue(keys.refused)
        let used = try await context.counterValue(keys.used)
        // The day's clients as of now, not as of this admission's count: an admission that counted
        // before another's eviction but reads `refused` after it would otherwise take that eviction
        // for its own and evict nothing (the store then holds one more than the share; found by
        // PlatformScaleTests under load). In a race this may evict one more than needed, never fewer.
        let current = max(created, try await context.counterValue(keys.created))
        guard current - refused - used > perDay else { return .success(start) }
        if let victim = try await evict(for: owner, now: now) {
            context.events(.unusedClientEvicted(victim))
            return .success(start)
        }
        // Nothing to evict: this attempt stores nothing, so take it back out of the day's clients.
        _ = try? await context.increment(keys.refused, expiresAt: expiry(start))
        let end = start + Self.window
        // Look again within a minute: clients of this day may be used meanwhile and free room.
        spentUntil.withLock { $0 = min(end, now + 60) }
        return .failure(Wait(seconds: end - now))
    }

    /// Counts `owner`'s new clients this hour and lists it among the hour's repeat owners from its
    /// second on (the entry is written again each time, because eviction drops the entries of
    /// owners it finds with nothing left).
    private func noteOwner(_ owner: Owner, now: Int) async throws(OAuthError) {
        let hour = now - now % 3600
        let count = try await context.increment(
            OAuthKeys.limitCounter("owner-clients", subject: owner.key, window: hour),
            expiresAt: hour + 7200 + SharedLimiter.skewAllowance)
        guard count >= 2 else { return }
        _ = try await context.put(
            ItemKey(pk: Self.repeatOwnersPartition(kind: owner.platform ? "p" : "s", hour: hour), sk: owner.key), [:],
            expiresAt: hour + 7200 + SharedLimiter.skewAllowance)
    }

    /// The hour's owners with two or more new clients: `s` self-registered, `p` known platforms.
    static func repeatOwnersPartition(kind: String, hour: Int) -> String {
        "LIMIT#repeat-owners#\(kind)#\(hour)"
    }

    /// The sort key of index entries: the creation time, zero-padded, then the record.
    static func sortKey(issuedAt: Int, recordID: String) -> String {
        let time = String(issuedAt)
        return String(repeating: "0", count: max(0, 12 - time.count)) + time + "#" + recordID
    }

    /// The creation time and record of an index entry's sort key.
    static func parseSortKey(_ sk: String) -> (issuedAt: Int, recordID: String)? {
        guard let mark = sk.firstIndex(of: "#"), let issuedAt = Int(sk[..<mark]) else { return nil }
        return (issuedAt, String(sk[sk.index(after: mark)...]))
    }

    /// The index entry, by creation time, of an unused client created at `issuedAt`.
    static func indexKey(issuedAt: Int, recordID: String) -> ItemKey {
        let day = issuedAt - issuedAt % window
        return ItemKey(pk: "LIMIT#unused-clients#\(day)", sk: sortKey(issuedAt: issuedAt, recordID: recordID))
    }

    /// The index entry, by owner, of an unused client.
    static func ownerKey(owner: String, issuedAt: Int, recordID: String) -> ItemKey {
        ItemKey(pk: "LIMIT#unused-by#\(owner)", sk: sortKey(issuedAt: issuedAt, recordID: recordID))
    }

    /// Records a new unused client in the eviction indexes (they expire with the client).
    func indexCreated(recordID: String, issuedAt: Int, expiresAt: Int, owner: String?) async throws(OAuthError) {
        _ = try await context.put(Self.indexKey(issuedAt: issuedAt, recordID: recordID), [:], expiresAt: expiresAt)
        if let owner {
            _ = try await context.put(
                Self.ownerKey(owner: owner, issuedAt: issuedAt, recordID: recordID), [:], expiresAt: expiresAt)
        }
    }

    /// Removes a client that was used (or evicted) from the eviction indexes.
    func indexUsed(recordID: String, issuedAt: Int, owner: String?) async {
        _ = try? await context.delete(Self.indexKey(issuedAt: issuedAt, recordID: recordID))
        if let owner {
            _ = try? await context.delete(Self.ownerKey(owner: owner, issuedAt: issuedAt, recordID: recordID))
        }
    }

    /// Counts the first token exchange of a client created in window `start`.
    func clientUsed(createdIn start: Int) async {
        guard start % Self.window == 0,
            start + Self.window + context.configuration.lifetimes.unusedClient.wholeSeconds > context.now
        else { return }
        _ = try? await context.increment(keys(start).used, expiresAt: expiry(start))
    }

    /// The seconds to wait, for `Retry-After`.
    struct Wait: Error, Equatable {
        var seconds: Int
    }

    func keys(_ start: Int) -> (created: ItemKey, refused: ItemKey, used: ItemKey) {
        (
            OAuthKeys.limitCounter("clients-created", subject: "*", window: start),
            OAuthKeys.limitCounter("clients-refused", subject: "*", window: start),
            OAuthKeys.limitCounter("clients-used", subject: "*", window: start)
        )
    }

    /// A day's counters are needed while its clients may be unused and alive.
    func expiry(_ start: Int) -> Int {
        start + Self.window + context.configuration.lifetimes.unusedClient.wholeSeconds + SharedLimiter.skewAllowance
    }
}
