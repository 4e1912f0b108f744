import RelayHTTP
import RelayStore
import RelaySync

/// A fixed-window counter per client address (or any other key: RelayService counts tool calls per
/// grant with it), in memory. Enough for one relay instance; with several instances each enforces
/// its own share.
///
/// IPv6 addresses count per /64: one subscriber gets at least a /64 and can draw a fresh address
/// from it for every request, so a per-address budget would be no budget. The table holds at most
/// `capacity` windows: past it, expired windows go first, then the oldest ones (those addresses
/// start afresh), a tenth of the table at a time, so a flood of new addresses costs bounded memory
/// and amortised constant time per request rather than a scan of the table on every request.
package final class RateLimiter: Sendable {
    private struct Window {
        var start: Int
        var count: Int
    }

    private let limit: OAuthConfiguration.RateLimit
    private let capacity: Int
    private let windows = Locked<[String: Window]>([:])

    /// A limiter holding at most `capacity` windows.
    package init(_ limit: OAuthConfiguration.RateLimit, capacity: Int = 100_000) {
        self.limit = limit
        self.capacity = max(10, capacity)
    }

    /// Windows held (for tests).
    var count: Int { windows.withLock { $0.count } }

    /// Counts one request from `address` at `now`; returns the seconds to wait when over the limit.
    func admit(_ address: String, now: Int) -> Int? { admit(key: Self.key(address), now: now) }

    /// Counts one request under `key` exactly as given (no address folding) at `now`, in seconds;
    /// returns the seconds to wait when over the limit.
    package func admit(key: String, now: Int) -> Int? {
        windows.withLock { windows in
            if windows[key] == nil && windows.count >= capacity { makeRoom(&windows, now: now) }
            var window = windows[key] ?? Window(start: now, count: 0)
            if now - window.start >= limit.window.wholeSeconds { window = Window(start: now, count: 0) }
            guard window.count < limit.requests else { return max(1, window.start + limit.window.wholeSeconds - now) }
            window.count += 1
            windows[key] = window
            return nil
        }
    }

    /// Drops expired windows; if that frees less than a tenth of the table, the oldest windows too.
    private func makeRoom(_ windows: inout [String: Window], now: Int) {
        windows = windows.filter { now - $0.value.start < limit.window.wholeSeconds }
        let target = capacity - capacity / 10
        guard windows.count > target else { return }
        let oldest = windows.sorted { $0.value.start < $1.value.start }.prefix(windows.count - target)
        for (key, _) in oldest { windows[key] = nil }
    }

    /// The key an address counts under: `IPAddress.block` (an IPv4 address as it is, an IPv6 address
    /// as its /64, an IPv4-mapped one as the IPv4 address); anything that is not an address as it is.
    static func key(_ address: String) -> String {
        IPAddress(address)?.block.unredacted ?? address
    }
}
