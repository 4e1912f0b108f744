import RelayOAuth
import RelayStore
import RelaySync

/// The newest sealed CloudKit token and grant version this process knows per grant, so a call
/// that waited its turn behind another call of the same grant uses the token that call rotated
/// to, not the snapshot its bearer validation read. Entries older than a minute are dropped: by
/// then every waiting request has re-validated, and the store holds the same state. A token the
/// store could not take (an outage) is kept until a later call saves it or the grant ends: it may
/// be the only live one.
final class GrantStates: Sendable {
    struct State {
        var sealed: [UInt8]
        /// The grant's store version this sealed token belongs to.
        var version: Int
        /// The store refused or failed the write: the token is newer than the store's copy at `version`.
        var unsaved = false
        /// For an unsaved token: the sealed token the store still holds, which this one replaces.
        var replaced: [UInt8]? = nil
        /// For an unsaved token: older unsaved tokens of this process's chain whose write failed
        /// without an answer (a store that hung or reset may have carried it out), oldest first.
        var attempted: [[UInt8]] = []
        /// For an unsaved token: the grant whose call rotated it (`UnsavedRotations` logs and
        /// writes it without a request of the grant).
        var owner: BearerGrant? = nil

        /// The store's copy this token replaces when it is saved.
        var base: [UInt8] { unsaved ? (replaced ?? sealed) : sealed }

        /// Every stored token a successor of this one may replace: the base, and for an unsaved
        /// token the tokens of its chain whose writes may have landed unseen (itself included).
        var bases: [[UInt8]] { unsaved ? [base] + attempted + [sealed] : [sealed] }
    }

    private struct Entry {
        var state: State
        var updatedAt: Double
    }

    private struct Table {
        var entries: [String: Entry] = [:]
        /// Per grant, the newest token this process rotated to but could not install because the
        /// store held another (`RotationWriter`, superseded): tried once before the grant may end.
        var orphans: [String: [UInt8]] = [:]
        /// Grants this process saw waiting for their person to sign in to iCloud again: their calls ask the
        /// store, not CloudKit, even while a cached validation still says otherwise (`GrantSession.startingState`).
        var waiting: Set<String> = []
        /// The size at which stale entries are dropped next: twice what stayed after the last
        /// prune, so pruning costs amortised constant time per call however many grants are active.
        var pruneAt = GrantStates.minimumPruneAt
    }

    private static let minimumPruneAt = 10_000
    private let table = Locked(Table())
    private let clock: any WallClock
    private let lifetime = 60.0

    init(clock: any WallClock = SystemClock()) { self.clock = clock }

    /// The newer of `snapshot` and what this process last wrote for `grantID`. A token the store
    /// could not take stays newer for as long as the store holds the one it replaces, whatever else
    /// (a refresh rotation) changed the grant's version meanwhile.
    func current(_ grantID: String, snapshot: State) -> State {
        let now = clock.now()
        return table.withLock { table in
            guard let entry = table.entries[grantID], entry.state.unsaved || now - entry.updatedAt < lifetime else {
                return snapshot
            }
            if entry.state.unsaved {
                if snapshot.version <= entry.state.version { return entry.state }
                guard entry.state.bases.contains(snapshot.sealed) else { return snapshot }
                var state = entry.state
                state.version = snapshot.version
                return state
            }
            return entry.state.version > snapshot.version ? entry.state : snapshot
        }
    }

    func record(_ grantID: String, _ state: State) {
        let now = clock.now()
        table.withLock { table in
            if table.entries.count >= table.pruneAt {
                table.entries = table.entries.filter { $0.value.state.unsaved || now - $0.value.updatedAt < lifetime }
                table.pruneAt = max(Self.minimumPruneAt, table.entries.count * 2)
            }
            table.entries[grantID] = Entry(state: state, updatedAt: now)
        }
    }

    /// The unsaved tokens this process holds, by grant (`UnsavedRotations` writes them).
    func unsaved() -> [(grantID: String, state: State)] {
        table.withLock { table in
            table.entries.compactMap { $0.value.state.unsaved ? ($0.key, $0.value.state) : nil }
        }
    }

    /// The entry of `grantID` when it is an unsaved token.
    func unsavedState(_ grantID: String) -> State? {
        table.withLock { table in
            guard let entry = table.entries[grantID], entry.state.unsaved else { return nil }
            return entry.state
        }
    }

    /// How many grants hold a token the store has not taken yet (a gauge).
    var unsavedCount: Int { table.withLock { $0.entries.values.count { $0.state.unsaved } } }

    func forget(_ grantID: String) {
        table.withLock {
            $0.entries[grantID] = nil
            $0.orphans[grantID] = nil
            $0.waiting.remove(grantID)
        }
    }

    /// Notes whether the grant waits for its person to sign in to iCloud again, as the store just said.
    func noteWaiting(_ grantID: String, _ waits: Bool) {
        table.withLock {
            guard waits else {
                $0.waiting.remove(grantID)
                return
            }
            // Bounded like the orphans: a forgotten mark costs one refused CloudKit call, which marks it again.
            if $0.waiting.count >= Self.minimumPruneAt { $0.waiting.removeAll() }
            $0.waiting.insert(grantID)
        }
    }

    /// Whether this process last saw the grant waiting for a sign-in.
    func waitsForSignIn(_ grantID: String) -> Bool { table.withLock { $0.waiting.contains(grantID) } }

    /// Keeps `sealed` as the grant's orphan (replacing an older one), dropping the unsaved entry.
    func orphan(_ grantID: String, _ sealed: [UInt8]) {
        table.withLock {
            $0.entries[grantID] = nil
            $0.orphans[grantID] = sealed
            // Bounded like the entries: orphans are rare, and each is tried once.
            if $0.orphans.count > Self.minimumPruneAt { $0.orphans.removeAll() }
        }
    }

    /// The grant's orphan, removed: each is tried once.
    func takeOrphan(_ grantID: String) -> [UInt8]? {
        table.withLock { $0.orphans.removeValue(forKey: grantID) }
    }

    /// Grants with an entry (stale ones included until the next prune).
    var count: Int { table.withLock { $0.entries.count } }
}
