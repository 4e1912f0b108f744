import RelayCrypto
import RelayOAuth
import RelayStore

/// Recently validated bearer tokens, so requests that need no upstream call (`tools/list`,
/// `ping`) are answered without store reads. Keyed by SHA-256 of the token (the token itself is
/// not kept). An entry lives at most `ttl` seconds and never past the token's expiry; revoking
/// the grant in this process evicts it at once, and another instance's revocation takes effect
/// within `ttl` (`RELAY_OAUTH_VALIDATION_CACHE_TTL`, 0 disables; docs/threat-model.md).
final class BearerCache: Sendable {
    private struct Entry {
        var grant: BearerGrant
        var expiresAt: Double
    }

    private let ttl: Double
    private let capacity: Int
    private let clock: any Clock
    private let entries = Locked([String: Entry]())

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
            guard let entry = entries[key] else { return nil }
            guard entry.expiresAt > now else {
                entries[key] = nil
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
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expiresAt > now }
                if entries.count >= capacity { entries.removeAll() }
            }
            entries[key] = Entry(grant: grant, expiresAt: expiresAt)
        }
    }

    /// Forgets every token of a grant (revoked, deleted, CloudKit session ended).
    func evict(grantID: String) {
        entries.withLock { entries in entries = entries.filter { $0.value.grant.grantID != grantID } }
    }
}
