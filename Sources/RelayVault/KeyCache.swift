import RelayCrypto
import RelaySync

/// Unwrapped grant data keys in memory, keyed by an HMAC of the token under a per-process random
/// key (so the cache's keys match nothing stored). Entries live `ttl` seconds from insertion;
/// past `capacity`, the oldest go first.
final class KeyCache: Sendable {
    private struct Entry {
        let key: SymmetricKey
        let context: SealContext
        let expiresAt: Double
        let generation: Int
    }

    private struct State {
        var entries: [SHA256Digest: Entry] = [:]
        /// Insertion order (which is expiry order, as every entry gets the same TTL).
        var order: [(id: SHA256Digest, generation: Int)] = []
        var head = 0
        var generation = 0
    }

    private let state = Locked(State())
    private let hashKey = SymmetricKey.random()
    private let ttl: Double
    private let capacity: Int
    private let clock: any WallClock

    init(ttl: Double, capacity: Int, clock: any WallClock) {
        self.ttl = ttl
        self.capacity = capacity
        self.clock = clock
    }

    func lookup(token: String, context: SealContext) -> SymmetricKey? {
        let id = identifier(token)
        let now = clock.now()
        return state.withLock { state in
            guard let entry = state.entries[id] else { return nil }
            guard entry.expiresAt > now else {
                state.entries[id] = nil
                return nil
            }
            return entry.context == context ? entry.key : nil
        }
    }

    func insert(token: String, context: SealContext, key: SymmetricKey) {
        let id = identifier(token)
        let now = clock.now()
        state.withLock { state in
            state.generation += 1
            state.entries[id] = Entry(key: key, context: context, expiresAt: now + ttl, generation: state.generation)
            state.order.append((id, state.generation))
            while state.head < state.order.count {
                let (oldest, generation) = state.order[state.head]
                guard let entry = state.entries[oldest], entry.generation == generation else {
                    state.head += 1  // replaced or removed since: nothing to evict
                    continue
                }
                guard entry.expiresAt <= now || state.entries.count > capacity else { break }
                state.entries[oldest] = nil
                state.head += 1
            }
            if state.head > 1024 && state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    func remove(token: String) {
        let id = identifier(token)
        state.withLock { $0.entries[id] = nil }
    }

    /// Removes the keys of one grant (its seal context names it). A scan: revocations are rare.
    func remove(grantID: String) {
        state.withLock { state in state.entries = state.entries.filter { $0.value.context.grantId != grantID } }
    }

    var count: Int { state.withLock { $0.entries.count } }

    private func identifier(_ token: String) -> SHA256Digest {
        HMACSHA256.digest(of: token, key: hashKey)
    }
}
