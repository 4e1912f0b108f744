import RelayStore
import Testing

@testable import RelayApp
@testable import RelayOAuth

/// The validation cache: entries live at most the TTL, and tokens retired by refresh rotations do
/// not pile up in memory.
struct BearerCacheTests {
    private func grant(_ id: String, expiresAt: Int = 1_900_000_000) -> BearerGrant {
        BearerGrant(
            grantID: id, userID: "user", clientID: "client", scopes: ["todos"], resource: "https://relay.example/mcp",
            sealed: [1, 2, 3], grantVersion: 1, boundSecret: [4, 5, 6], tokenHash: "hash-" + id, expiresAt: expiresAt)
    }

    @Test func entriesLiveAtMostTheTTLAndNeverPastTheTokenExpiry() {
        let clock = ManualClock()
        let cache = BearerCache(ttl: 5, clock: clock)
        cache.insert(grant("a"), key: "ka")
        cache.insert(grant("b", expiresAt: Int(clock.now()) + 2), key: "kb")
        #expect(cache.lookup("ka")?.grantID == "a")
        #expect(cache.lookup("kb")?.grantID == "b")
        clock.advance(by: 3)
        #expect(cache.lookup("kb") == nil, "the token itself expired")
        #expect(cache.lookup("ka")?.grantID == "a")
        clock.advance(by: 2.5)
        #expect(cache.lookup("ka") == nil)
    }

    @Test func retiredTokensAreSweptNotKept() {
        let clock = ManualClock()
        let cache = BearerCache(ttl: 5, clock: clock)
        // A grant refreshing once a second for ten minutes: 600 tokens, each used once.
        for second in 0..<600 {
            cache.insert(grant("g"), key: "token-\(second)")
            clock.advance(by: 1)
        }
        #expect(cache.count <= 11, "at most two TTLs of tokens (one sweep per TTL), not every token validated")
        #expect(cache.lookup("token-599")?.grantID == "g")
    }

    @Test func evictingAGrantForgetsAllItsTokensAndAZeroTTLCachesNothing() {
        let clock = ManualClock()
        let cache = BearerCache(ttl: 5, clock: clock)
        cache.insert(grant("g"), key: "one")
        cache.insert(grant("g"), key: "two")
        cache.insert(grant("h"), key: "three")
        cache.evict(grantID: "g")
        #expect(cache.lookup("one") == nil && cache.lookup("two") == nil)
        #expect(cache.lookup("three")?.grantID == "h")

        let off = BearerCache(ttl: 0, clock: clock)
        off.insert(grant("g"), key: "one")
        #expect(off.lookup("one") == nil && off.count == 0)
    }
}
