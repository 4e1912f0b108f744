import RelayStore
import RelaySync
import Testing

@testable import RelayOAuth
@testable import RelayService

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
        let cache = BearerCache(ttl: .seconds(5), clock: clock)
        cache.insert(grant("a"), key: BearerCache.key("ka"), validatedSince: clock.now())
        cache.insert(
            grant("b", expiresAt: Int(clock.now()) + 2), key: BearerCache.key("kb"), validatedSince: clock.now())
        #expect(cache.lookup(BearerCache.key("ka"))?.grantID == "a")
        #expect(cache.lookup(BearerCache.key("kb"))?.grantID == "b")
        clock.advance(by: 3)
        #expect(cache.lookup(BearerCache.key("kb")) == nil, "the token itself expired")
        #expect(cache.lookup(BearerCache.key("ka"))?.grantID == "a")
        clock.advance(by: 2.5)
        #expect(cache.lookup(BearerCache.key("ka")) == nil)
    }

    @Test func retiredTokensAreSweptNotKept() {
        let clock = ManualClock()
        let cache = BearerCache(ttl: .seconds(5), clock: clock)
        // A grant refreshing once a second for ten minutes: 600 tokens, each used once.
        for second in 0..<600 {
            cache.insert(grant("g"), key: BearerCache.key("token-\(second)"), validatedSince: clock.now())
            clock.advance(by: 1)
        }
        #expect(cache.count <= 11, "at most two TTLs of tokens (one sweep per TTL), not every token validated")
        #expect(cache.lookup(BearerCache.key("token-599"))?.grantID == "g")
    }

    @Test func evictingAGrantForgetsAllItsTokensAndAZeroTTLCachesNothing() {
        let clock = ManualClock()
        let cache = BearerCache(ttl: .seconds(5), clock: clock)
        cache.insert(grant("g"), key: BearerCache.key("one"), validatedSince: clock.now())
        cache.insert(grant("g"), key: BearerCache.key("two"), validatedSince: clock.now())
        cache.insert(grant("h"), key: BearerCache.key("three"), validatedSince: clock.now())
        cache.evict(grantID: "g")
        #expect(cache.lookup(BearerCache.key("one")) == nil && cache.lookup(BearerCache.key("two")) == nil)
        #expect(cache.lookup(BearerCache.key("three"))?.grantID == "h")

        let off = BearerCache(ttl: .zero, clock: clock)
        off.evict(grantID: "g")
        off.insert(grant("g"), key: BearerCache.key("one"), validatedSince: clock.now())
        #expect(off.lookup(BearerCache.key("one")) == nil && off.count == 0)
    }

    /// A validation that read the store before a revocation and finishes after it must not put the
    /// token back: it is served (it was valid when read) but not remembered.
    @Test func aValidationThatStartedBeforeARevocationIsNotCached() {
        let clock = ManualClock()
        let cache = BearerCache(ttl: .seconds(5), clock: clock)
        let before = cache.now()
        clock.advance(by: 0.5)
        cache.evict(grantID: "g")
        cache.evict(tokenHash: "hash-t")
        clock.advance(by: 0.5)
        cache.insert(grant("g"), key: BearerCache.key("late-grant"), validatedSince: before)
        cache.insert(grant("t"), key: BearerCache.key("late-token"), validatedSince: before)
        #expect(
            cache.lookup(BearerCache.key("late-grant")) == nil && cache.lookup(BearerCache.key("late-token")) == nil)
        // A validation that began after the revocation read the store after it: it may be cached
        // (for a grant that was deleted it could not have succeeded at all).
        cache.insert(grant("g"), key: BearerCache.key("fresh"), validatedSince: cache.now())
        #expect(cache.lookup(BearerCache.key("fresh"))?.grantID == "g")
        // So may any validation once the mark has aged out, and none that began a minute ago.
        clock.advance(by: BearerCache.revocationMemory)
        cache.insert(grant("t"), key: BearerCache.key("later"), validatedSince: cache.now())
        #expect(cache.lookup(BearerCache.key("later"))?.grantID == "t")
        cache.insert(
            grant("x"), key: BearerCache.key("ancient"), validatedSince: cache.now() - BearerCache.revocationMemory)
        #expect(cache.lookup(BearerCache.key("ancient")) == nil)
    }

    /// RFC 7009 revocation of one access token forgets that token only; the grant's others stay.
    @Test func evictingOneTokenKeepsTheGrantsOtherTokens() {
        let clock = ManualClock()
        let cache = BearerCache(ttl: .seconds(5), clock: clock)
        let first = grant("g")
        let second = BearerGrant(
            grantID: "g", userID: "user", clientID: "client", scopes: ["todos"], resource: "https://relay.example/mcp",
            sealed: [1], grantVersion: 1, boundSecret: [4], tokenHash: "other-hash", expiresAt: 1_900_000_000)
        cache.insert(first, key: BearerCache.key("one"), validatedSince: clock.now())
        cache.insert(second, key: BearerCache.key("two"), validatedSince: clock.now())
        cache.evict(tokenHash: first.tokenHash)
        #expect(cache.lookup(BearerCache.key("one")) == nil)
        #expect(cache.lookup(BearerCache.key("two"))?.tokenHash == "other-hash")
    }
}
