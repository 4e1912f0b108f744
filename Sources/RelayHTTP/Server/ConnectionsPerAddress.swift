import RelaySync

/// Open connections per client (`AddressBlock`), shared by every loop of one server: the
/// per-address cap. A block has an entry only while it holds a connection, so the table never has
/// more entries than the server has connections, and an accept or a close costs one hash lookup
/// under a lock held for nothing else.
final class ConnectionsPerAddress: Sendable {
    /// Connections one block may hold at most.
    let limit: Int
    /// The server's `maxConnections`, which the active blocks share (`LoadShedding.share`).
    let capacity: Int
    private let counts = Locked<[AddressBlock: Int]>([:])

    init(limit: Int, capacity: Int = Int.max) {
        self.limit = limit
        self.capacity = capacity
    }

    /// Counts one more connection for `block`; false (and nothing counted) when it holds its share:
    /// `limit`, or less when so many blocks hold connections that an equal share of the table is
    /// smaller (a new block counts itself among them).
    func admit(_ block: AddressBlock) -> Bool {
        counts.withLock { counts in
            let held = counts[block, default: 0]
            let blocks = counts.count + (held == 0 ? 1 : 0)
            guard held < LoadShedding.share(limit: limit, capacity: capacity, addresses: blocks) else { return false }
            counts[block] = held + 1
            return true
        }
    }

    /// Forgets one connection of `block` (admitted earlier).
    func release(_ block: AddressBlock) {
        counts.withLock { counts in
            guard let held = counts[block] else { return }
            counts[block] = held > 1 ? held - 1 : nil
        }
    }

    /// Connections counted for `block` now.
    func held(by block: AddressBlock) -> Int { counts.withLock { $0[block, default: 0] } }

    /// Blocks holding at least one connection.
    var blocks: Int { counts.withLock { $0.count } }
}
