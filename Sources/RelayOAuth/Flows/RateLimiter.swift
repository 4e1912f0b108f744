import RelayStore

/// A fixed-window counter per key (a client address), in memory. Enough for one relay instance;
/// with several instances each enforces its own share.
final class RateLimiter: Sendable {
    private struct Window {
        var start: Int
        var count: Int
    }

    private let limit: OAuthConfiguration.RateLimit
    private let windows = Locked<[String: Window]>([:])

    init(_ limit: OAuthConfiguration.RateLimit) { self.limit = limit }

    /// Counts one request for `key` at `now`; returns the seconds to wait when over the limit.
    func admit(_ key: String, now: Int) -> Int? {
        windows.withLock { windows in
            if windows.count > 10_000 { windows = windows.filter { now - $0.value.start < limit.window } }
            var window = windows[key] ?? Window(start: now, count: 0)
            if now - window.start >= limit.window { window = Window(start: now, count: 0) }
            guard window.count < limit.requests else { return max(1, window.start + limit.window - now) }
            window.count += 1
            windows[key] = window
            return nil
        }
    }
}
