import RelayStore
import RelaySync

/// A fixed-window budget that holds across relay instances, because it is counted in the store
/// every instance shares (`LIMIT#<name>#<subject>` / `W<window start>`, docs/storage-schema.md).
///
/// A counter is an item with no attributes whose **version is the count**: `update` with nothing
/// to change adds one to it atomically (SQLite in its writer transaction, DynamoDB with
/// `#v = #v + 1` under a condition), and `put(.absent)` starts it at 1. So one event costs one
/// conditional write and never a read-modify-write retry, whatever the contention; the first
/// event of a window costs two (the update that finds nothing, then the create).
///
/// An event is admitted when the count it produced is within the limit, so across any number of
/// instances exactly `limit` events per window are admitted. Counts only grow within a window:
/// once this instance has seen a subject over its limit it refuses that subject locally until the
/// window ends, without a store operation, so a flood past the limit costs nothing but this check.
/// Windows start at multiples of the window length since the epoch, so every instance agrees on
/// them (up to clock skew, which the counter's extra lifetime covers).
///
/// Subjects are hashed with the pepper before they reach a key: no client address is stored.
final class SharedLimiter: Sendable {
    /// The limit's name in keys (`registrations`, `pages`, `token-failures`).
    let name: String
    /// Events per window.
    let limit: OAuthConfiguration.RateLimit
    private let context: OAuthContext
    /// Subjects seen over the limit by this instance, with the end of their window.
    private let exhausted = Locked<[String: Int]>([:])
    private let capacity: Int

    /// A limiter named `name`; `capacity` bounds the subjects remembered as exhausted.
    init(name: String, limit: OAuthConfiguration.RateLimit, context: OAuthContext, capacity: Int = 100_000) {
        self.name = name
        self.limit = limit
        self.context = context
        self.capacity = max(10, capacity)
    }

    /// Whether the limit counts anything (a limit of 0 requests turns it off).
    var isEnabled: Bool { limit.requests > 0 }

    /// Seconds until `subject` may try again, when this instance already knows its window is
    /// spent; nil otherwise. No store operation.
    func knownWait(_ subject: String) -> Int? {
        guard isEnabled else { return nil }
        let now = context.now
        let key = self.key(subject)
        return exhausted.withLock { entries in
            guard let end = entries[key] else { return nil }
            if end <= now {
                entries[key] = nil
                return nil
            }
            return end - now
        }
    }

    /// Counts one event for `subject`: nil when it is within the limit, else the seconds until
    /// the window ends. A subject already known to be over costs no store operation.
    func count(_ subject: String) async throws(OAuthError) -> Int? {
        guard isEnabled else { return nil }
        if let wait = knownWait(subject) { return wait }
        let now = context.now
        let start = now - now % limit.window.wholeSeconds
        let end = start + limit.window.wholeSeconds
        let hashed = key(subject)
        let count = try await context.increment(
            OAuthKeys.limitCounter(name, subject: hashed, window: start), expiresAt: end + Self.skewAllowance)
        guard count > limit.requests else { return nil }
        remember(hashed, until: end)
        return max(1, end - now)
    }

    /// How long a counter outlives its window: instances whose clocks run behind still find it.
    static let skewAllowance = 300

    private func key(_ subject: String) -> String { context.hasher.limitSubject(subject, limit: name) }

    private func remember(_ key: String, until end: Int) {
        let now = context.now
        exhausted.withLock { entries in
            if entries[key] == nil && entries.count >= capacity {
                entries = entries.filter { $0.value > now }
                // Still full: forget them all; each costs one more store write to learn again.
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[key] = end
        }
    }
}
