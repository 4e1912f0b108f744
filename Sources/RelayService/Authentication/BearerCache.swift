import RelayCrypto
import RelayOAuth
import RelayStore
import RelaySync

/// Recently validated bearer tokens, so requests that need no upstream call (`tools/list`,
/// `ping`) are answered without store reads. Keyed by SHA-256 of the token (the token itself is
/// not kept). An entry lives at most `ttl` seconds and never past the token's expiry.
///
/// Revocation in this process takes effect before its answer: the revoking code evicts the grant
/// (or the one access token) here, and leaves a mark so that a validation which read the store
/// *before* the revocation and finishes after it cannot put the token back. Another instance's
/// revocation (or `mustdo-relayctl`'s, another process) takes effect here within `ttl`
/// (`RELAY_OAUTH_VALIDATION_CACHE_TTL`, 0 disables; docs/threat-model.md).
/// Expired entries are swept once per `ttl`, so the cache holds about `ttl` seconds of distinct
/// tokens however many a refresh rotation retires.
final class BearerCache: Sendable {
    private struct Entry {
        var grant: BearerGrant
        var expiresAt: Double
    }

    private struct Entries {
        var byKey: [SHA256Digest: Entry] = [:]
        var nextSweep = 0.0
        /// When a grant, or one access token (by its keyed hash), was last revoked in this process.
        var revokedGrants: [String: Double] = [:]
        var revokedTokens: [String: Double] = [:]
    }

    /// How long a revocation mark is kept, and so the oldest validation whose result may still be
    /// cached: one that began longer ago than this is served but not remembered.
    static let revocationMemory = 60.0

    private let ttl: Double
    private let capacity: Int
    private let clock: any WallClock
    private let entries = Locked(Entries())

    init(ttl: Duration, capacity: Int = 100_000, clock: any WallClock = SystemClock()) {
        self.ttl = ttl.seconds
        self.capacity = capacity
        self.clock = clock
    }

    static func key(_ token: String) -> SHA256Digest { SHA256.digest(of: token) }

    /// The clock reading a validation takes before it reads the store (`insert`'s `validatedSince`).
    func now() -> Double { clock.now() }

    func lookup(_ key: SHA256Digest) -> BearerGrant? {
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

    /// Remembers a validation that began reading the store at `validatedSince` — unless its grant
    /// or token was revoked here since then (the store may have answered before the revocation).
    func insert(_ grant: BearerGrant, key: SHA256Digest, validatedSince: Double) {
        guard ttl > 0 else { return }
        let now = clock.now()
        guard now - validatedSince < Self.revocationMemory else { return }
        let expiresAt = min(now + ttl, Double(grant.expiresAt))
        entries.withLock { entries in
            if let revoked = entries.revokedGrants[grant.grantID], revoked >= validatedSince { return }
            if let revoked = entries.revokedTokens[grant.tokenHash], revoked >= validatedSince { return }
            if now >= entries.nextSweep || entries.byKey.count >= capacity {
                entries.byKey = entries.byKey.filter { $0.value.expiresAt > now }
                entries.revokedGrants = entries.revokedGrants.filter { now - $0.value < Self.revocationMemory }
                entries.revokedTokens = entries.revokedTokens.filter { now - $0.value < Self.revocationMemory }
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
        guard ttl > 0 else { return }
        let now = clock.now()
        entries.withLock { entries in
            entries.byKey = entries.byKey.filter { $0.value.grant.grantID != grantID }
            entries.revokedGrants[grantID] = now
        }
    }

    /// Forgets one access token, by the keyed hash its record is stored under (RFC 7009 revocation
    /// of an access token alone: the grant and its other tokens stay).
    func evict(tokenHash: String) {
        guard ttl > 0 else { return }
        let now = clock.now()
        entries.withLock { entries in
            entries.byKey = entries.byKey.filter { $0.value.grant.tokenHash != tokenHash }
            entries.revokedTokens[tokenHash] = now
        }
    }
}
