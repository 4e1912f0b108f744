/// Which of the client's two connection pools an exchange with an `https` origin goes to, learnt
/// from that origin's answers.
///
/// The multiplexed pool caps connections per host, so an origin that speaks HTTP/2 gets a few
/// connections carrying many streams each; the parallel pool has no such cap, so an origin that
/// speaks only HTTP/1.1 (its ALPN said so) gets a connection per exchange in flight, as it must.
/// Until an origin has answered once, one exchange goes ahead as the probe and the others wait
/// here: sent at once, a burst would open a connection per exchange before any of them learnt
/// that one connection could carry them all.
///
/// A pure value: the client loop owns one and acts on what it answers. `Waiting` is whatever the
/// loop holds back (its transfers; tests use plain values).
struct OriginRouter<Waiting> {
    /// Where an exchange goes.
    enum Route: Equatable {
        /// The first exchange with an origin not known yet: the multiplexed pool, and its answer
        /// decides where the others go.
        case probe
        /// Held back until the probe's answer.
        case held
        /// The multiplexed pool (HTTP/2: few connections, many streams).
        case multiplexed
        /// The parallel pool (HTTP/1.1: one exchange per connection at a time).
        case parallel
    }

    private enum Knowledge {
        case probing
        case multiplexes
        case serial
    }

    private var origins: [String: Knowledge] = [:]
    private var waiting: [String: [Waiting]] = [:]
    /// Origins remembered at most; past it, everything but the probes in flight is forgotten and
    /// learnt again (the relay talks to a handful of configured origins).
    let capacity: Int

    init(capacity: Int = 64) { self.capacity = capacity }

    /// Exchanges held back right now.
    private(set) var waitingCount = 0

    /// Where a new exchange with `origin` (scheme, host and port) goes; `.held` keeps `item`.
    mutating func route(_ origin: String, _ item: Waiting) -> Route {
        switch origins[origin] {
        case .multiplexes: return .multiplexed
        case .serial: return .parallel
        case .probing:
            waiting[origin, default: []].append(item)
            waitingCount += 1
            return .held
        case nil:
            if origins.count >= capacity { forget() }
            origins[origin] = .probing
            return .probe
        }
    }

    /// `origin` answered over HTTP/2 (`multiplexes`) or HTTP/1.x. Every answer teaches (a
    /// server's configuration can change); the first also releases the exchanges held back,
    /// returned with the route they now take.
    mutating func answered(_ origin: String, multiplexes: Bool) -> (route: Route, released: [Waiting]) {
        if origins[origin] == nil && origins.count >= capacity { forget() }
        origins[origin] = multiplexes ? .multiplexes : .serial
        return (multiplexes ? .multiplexed : .parallel, takeWaiting(origin))
    }

    /// The probe ended without an answer (failed or cancelled): nothing was learnt. The exchanges
    /// held back go to the multiplexed pool, where libcurl itself waits for the first connection's
    /// ALPN before opening more (`CURLOPT_PIPEWAIT`); the next new exchange probes again.
    mutating func probeFailed(_ origin: String) -> [Waiting] {
        if origins[origin] == .probing { origins[origin] = nil }
        return takeWaiting(origin)
    }

    /// Removes and returns the held exchanges that match (cancelled, past their deadline, or all
    /// of them at shutdown).
    mutating func removeWaiting(where matches: (Waiting) -> Bool) -> [Waiting] {
        guard waitingCount > 0 else { return [] }
        var removed: [Waiting] = []
        for origin in Array(waiting.keys) {
            var kept: [Waiting] = []
            for item in waiting[origin]! {
                if matches(item) { removed.append(item) } else { kept.append(item) }
            }
            waiting[origin] = kept.isEmpty ? nil : kept
        }
        waitingCount -= removed.count
        return removed
    }

    private mutating func forget() { origins = origins.filter { $0.value == .probing } }

    private mutating func takeWaiting(_ origin: String) -> [Waiting] {
        let items = waiting.removeValue(forKey: origin) ?? []
        waitingCount -= items.count
        return items
    }
}
