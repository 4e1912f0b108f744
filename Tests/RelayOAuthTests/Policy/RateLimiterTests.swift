import Testing

@testable import RelayOAuth

/// The per-address budgets of `/register` and the sign-in pages: IPv6 counts per /64, and a flood
/// of new addresses cannot grow the table without bound.
struct RateLimiterTests {
    @Test func anIPv6SubscriberCannotDrawAFreshBudgetFromItsOwnPrefix() {
        let limiter = RateLimiter(.init(requests: 2, window: .seconds(600)))
        #expect(limiter.admit("2001:db8:1:2::1", now: 0) == nil)
        #expect(limiter.admit("2001:db8:1:2:ffff:eeee:dddd:cccc", now: 1) == nil)
        #expect(limiter.admit("2001:db8:1:2::99", now: 2) == 598, "a third address in the same /64 shares the budget")
        #expect(limiter.admit("2001:db8:1:3::1", now: 2) == nil, "the next /64 is someone else")
        #expect(limiter.admit("2001:db8:1:2::1", now: 600) == nil, "a new window")
    }

    @Test func keysAreTheIPv4AddressOrTheIPv6Prefix() {
        #expect(RateLimiter.key("192.0.2.7") == "192.0.2.7")
        #expect(RateLimiter.key("2001:DB8:0:0A::1") == "2001:db8:0:a::/64")
        #expect(RateLimiter.key("2001:db8:0:a:1:2:3:4") == "2001:db8:0:a::/64")
        #expect(RateLimiter.key("::ffff:192.0.2.7") == "192.0.2.7", "an IPv4-mapped address is the IPv4 address")
        #expect(RateLimiter.key("unknown") == "unknown")
        #expect(RateLimiter.key("not:an:address") == "not:an:address")
    }

    @Test func aFloodOfNewAddressesKeepsTheTableBoundedAndTheRecentLimitsHeld() {
        let limiter = RateLimiter(.init(requests: 1, window: .seconds(600)), capacity: 1000)
        #expect(limiter.admit("192.0.2.1", now: 0) == nil)
        for index in 0..<5000 {
            // All within one window: nothing expires, so the oldest windows make room.
            _ = limiter.admit("2001:db8:\(String(index, radix: 16))::1", now: 1 + index / 100)
            #expect(limiter.count <= 1000)
        }
        #expect(limiter.admit("2001:db8:1387::2", now: 51) != nil, "a recent /64 is still over its limit")
        #expect(limiter.admit("192.0.2.1", now: 51) == nil, "the oldest window was the one let go")
    }

    @Test func expiredWindowsAreDroppedBeforeAnyLiveOne() {
        let limiter = RateLimiter(.init(requests: 1, window: .seconds(10)), capacity: 100)
        #expect(limiter.admit("198.51.100.1", now: 5) == nil)
        for index in 0..<99 { _ = limiter.admit("192.0.2.\(index)", now: 0) }
        #expect(limiter.count == 100)
        _ = limiter.admit("203.0.113.1", now: 11)  // the 99 from t=0 have expired; t=5 has not
        #expect(limiter.count == 2)
        #expect(limiter.admit("198.51.100.1", now: 11) != nil)
    }
}
