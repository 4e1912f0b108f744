import RelayCrypto
import RelayOAuth
import RelayStore

/// Recently validated bearer tokens, so requests that need no upstream call (`tools/list`,
/// `ping`) are answered without store reads. Keyed by SHA-256 of the token (the token itself is
/// not kept). An entry lives at most `ttl` seconds and never past the token's expiry; revoking
/// the grant in this process evicts it at once, and another instance's revocation takes effect
/// within `ttl` (`RELAY_OAUTH_VALIDATION_CACHE_TTL`, 0 disables; docs/threat-model.md).
/// Expired entries are swept once per `ttl`, so the cache holds about `ttl` seconds of distinct
/// tokens however many a refresh rotation retires.
final class BearerCache: Sendable {
    private struct Entry {
        var grant: BearerGrant
        var expiresAt: Double
    }

    private struct Entries {
        var byKey: [String: Entry] = [:]
        var nextSweep = 0.0
    }

    private let ttl: Double
    private let capacity: Int
    private let clock: any Clock
    private let entries = Locked(Entries())

    init(ttl: Int, capacity: Int = 100_000, clock: any Clock = SystemClock()) {
        self.ttl = Double(ttl)
        self.capacity = capacity
        self.clock = clock
    }

    static func key(_ token: String) -> String { Base64URL.encode(SHA256.hash(token)) }

    func lookup(_ key: String) -> BearerGrant? {
        guard ttl > 0 else { return nil }
        let now = clock.now()
        return entries.withLock { entries in
            guard let entry = entries.byKey[key] else { return nil }
            guard entry.expiresAt > now else {
                entries.byKey[key] = nil
                return nil
            }
            return entry.grant
        }
    }

    func insert(_ grant: BearerGrant, key: String) {
        guard ttl > 0 else { return }
        let now = clock.now()
        let expiresAt = min(now + ttl, Double(grant.expiresAt))
        entries.withLock { entries in
            if now >= entries.nextSweep || entries.byKey.count >= capacity {
                entries.byKey = entries.byKey.filter { $0.value.expiresAt > now }
                entries.nextSweep = now + ttl
                if entries.byKey.count >= capacity { entries.byKey.removeAll() }
            }
            entries.byKey[key] = Entry(grant: grant, expiresAt: expiresAt)
        }
    }

    /// How many tokens are cached (expired ones included until the next sweep).
    var count: Int { entries.withLock { $0.byKey.count } }

    /// Forgets every token of a grant (revoked, deleted, CloudKit session ended).
    func evict(grantID: String) {
        entries.withLock { entries in entries.byKey = entries.byKey.filter { $0.value.grant.grantID != grantID } }
    }
}
