import Synchronization

/// What a full connection table gives up first, and how its deadlines shrink as it fills
/// (issue 38): the rules every event loop applies to the table shared by the whole process.
///
/// At `maxConnections`, a new connection is admitted by closing one that costs least to lose: an
/// idle keep-alive connection (oldest idle first; its client reconnects when it next needs to), then
/// the slowest connection still sending its head or body. A connection whose request is being
/// served, or whose response is being written, is never closed. Only when no loop of the process
/// holds either kind is the new connection refused with 503. This is the idea of nginx's reuse of
/// keep-alive connections when `worker_connections` runs out and of Envoy's overload manager
/// (`envoy.overload_actions.reduce_timeouts`): under pressure the cheap connections make room.
///
/// The deadlines that let a client hold a slot without being served (keep-alive idle, head, body)
/// shrink linearly from their configured values at half full to `minimumScale` of them at
/// `fullAt`, so a full table also empties faster by itself.
package enum LoadShedding {
    /// Below this fill the configured deadlines apply unchanged.
    static let relaxedBelow = 0.5
    /// At and above this fill the deadlines are at `minimumScale`.
    static let fullAt = 0.95
    /// The smallest fraction of a configured deadline applied (10 s of head time becomes 2 s).
    static let minimumScale = 0.2
    /// A connection still sending its first bytes is not shed before this age (milliseconds): a
    /// client that has just connected has had no chance to be slow.
    static let minimumReadingAge: Int64 = 500
    /// An idle keep-alive connection is not shed before it has been idle this long (milliseconds):
    /// a client that has just had an answer is likely in the middle of a conversation (an MCP
    /// client's `initialize`, then `tools/list`) and would pay a new handshake for nothing.
    static let minimumIdleAge: Int64 = 2_000
    /// How many of the oldest reading connections are compared for the slowest.
    static let slowCandidates = 8
    /// The fewest connections one address may hold however many addresses are active (a browser
    /// opens about 6 per host; a small office behind one NAT address more).
    static let minimumShare = 16

    /// The fraction of each idle and read deadline applied when `open` of `capacity` connections are open.
    package static func deadlineScale(open: Int, capacity: Int) -> Double {
        guard capacity > 0 else { return 1 }
        let fill = Double(open) / Double(capacity)
        if fill <= relaxedBelow { return 1 }
        if fill >= fullAt { return minimumScale }
        return 1 - (fill - relaxedBelow) / (fullAt - relaxedBelow) * (1 - minimumScale)
    }

    /// The connections one address (`AddressBlock`) may hold while `addresses` addresses hold at
    /// least one: an equal share of the table, never more than `limit`, never under `minimumShare`
    /// (nor under `limit` when that is smaller).
    package static func share(limit: Int, capacity: Int, addresses: Int) -> Int {
        let equal = capacity / max(addresses, 1)
        return min(limit, max(minimumShare, equal))
    }
}

/// One loop's part in shedding across the process: roughly how many connections of each kind it
/// could give up (counted at its sweeps, so at most a sweep old), and how many other loops asked it
/// to close. Read and written from any loop.
final class ShedBoard: Sendable {
    /// Idle keep-alive connections at the last count.
    let idle = Atomic<Int>(0)
    /// Connections still sending a head or body at the last count.
    let reading = Atomic<Int>(0)
    /// Connections other loops asked this one to close, not yet closed.
    let requested = Atomic<Int>(0)
    /// Interrupts the loop's wait (set once the loop exists).
    let wake: @Sendable () -> Void

    init(wake: @escaping @Sendable () -> Void) { self.wake = wake }

    /// One connection of `kind` was shed: counted off until the next sweep recounts.
    func forget(_ kind: ServerEvent.Shed) {
        switch kind {
        case .idleKeepAlive: if idle.load(ordering: .relaxed) > 0 { idle.wrappingSubtract(1, ordering: .relaxed) }
        case .slowRequest: if reading.load(ordering: .relaxed) > 0 { reading.wrappingSubtract(1, ordering: .relaxed) }
        }
    }

    /// Takes one connection of this loop's for another loop's new client when the loop has one of
    /// `kind` to spare beyond those already asked for; true when asked.
    func ask(idleOnly: Bool) -> Bool {
        let spare = idleOnly ? idle.load(ordering: .relaxed) : reading.load(ordering: .relaxed)
        guard spare > requested.load(ordering: .relaxed) else { return false }
        requested.wrappingAdd(1, ordering: .relaxed)
        wake()
        return true
    }
}
