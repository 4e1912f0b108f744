import Foundation
import RelaySync
import Synchronization

/// The relay's own upstream client: one thread (`relay-direct`), one epoll instance, connections
/// kept per origin: HTTP/1.1 over plain TCP, and for `https` TLS over memory BIOs
/// (`DirectChannel.tls`) with HTTP/2 when ALPN says `h2` (`DirectCodec.http2`) or HTTP/1.1. `HTTPClient.send` hands it the exchanges it can take (`DirectExchange.target`);
/// everything else stays with libcurl's `ClientLoop`.
///
/// Callers hand exchanges over through a locked inbox and an eventfd wake-up (only the command
/// that makes the inbox non-empty wakes the thread); names are resolved on `DirectResolver`'s
/// thread; each caller's continuation is resumed on this thread when its exchange ends. The
/// thread never blocks except in `epoll_wait`.
///
/// `@unchecked Sendable`: every mutable field but `inbox` is touched only by the loop thread;
/// `inbox` is behind its lock, the poller's `wake()` is an eventfd write, the statistics are atomic.
final class DirectLoop: @unchecked Sendable {
    enum Command {
        case start(DirectExchange)
        case cancel(DirectExchange)
        case resolved(String, DirectResolver.Answer)
    }

    private struct Inbox {
        var commands: [Command] = []
        var stopping = false
    }

    let configuration: HTTPClientConfiguration
    let statistics: ClientStatisticsCounters
    let poller: DirectPoller
    private(set) var resolver: DirectResolver!
    private let inbox = Locked(Inbox())
    /// The commands of the current round, swapped out of the inbox (kept for its capacity).
    private var commandScratch: [Command] = []
    /// The event loop thread driving this loop (`DirectLoop+Hosting`), 0 when it runs its own
    /// thread (or none yet).
    let hostThread = Atomic<UInt>(0)
    /// Set by `submit` on the host's thread: the host turns this loop before it waits again.
    var hostPending = false

    var connections: [UInt64: DirectConnection] = [:]
    var pools: [String: DirectPool] = [:]
    /// Which path each `https` origin takes (the same pure type libcurl's loop uses).
    var router = OriginRouter<DirectExchange>()
    /// Created on the loop thread at the first `https` exchange (not `Sendable`); one per loop, so
    /// every connection to a `host:port` resumes the session the last one kept.
    var tlsContext: TLSClientContext?
    /// Ciphertext as `recv` returns it, before the TLS session takes it (one for the loop).
    let cipherScratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    /// Plaintext out of a TLS session, and HTTP/2 frames on their way into one.
    var plainScratch: [UInt8] = []
    var frameScratch: [UInt8] = []
    /// HTTP/2 connections with streams submitted this round: their frames go out together at the
    /// round's end (`flushQueuedConnections`), one TLS record and one `send` for every request the
    /// round started rather than one each.
    var flushQueue: [DirectConnection] = []
    var idleCount = 0
    var active: [ObjectIdentifier: DirectExchange] = [:]
    /// Exchanges waiting for a name's addresses, by `host port`.
    var resolving: [String: [DirectExchange]] = [:]
    var dns = DirectDNSCache()
    var nextConnectionID: UInt64 = 0
    /// The earliest moment something may be due (an exchange's deadline, a connect timeout, an
    /// idle connection's age); the sweep then looks at everything and sets the next one.
    var nextDeadline = Int64.max
    /// Idle connections older than this are closed (libcurl's default `CURLOPT_MAXAGE_CONN`).
    static let maxIdleMilliseconds: Int64 = 118_000

    init(configuration: HTTPClientConfiguration, statistics: ClientStatisticsCounters) throws(ClientError) {
        guard let poller = DirectPoller() else { throw .transport("epoll is unavailable") }
        self.configuration = configuration
        self.statistics = statistics
        self.poller = poller
        resolver = DirectResolver { [weak self] key, answer in self?.post(.resolved(key, answer)) }
    }

    deinit { cipherScratch.deallocate() }

    /// Starts the thread; it keeps the loop alive until `stop()`.
    func startThread() {
        let thread = Thread { [self] in
            ThreadName.setCurrent("relay-direct")
            run()
        }
        thread.name = "relay-direct"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Queues an exchange; its continuation is resumed exactly once.
    func submit(_ exchange: DirectExchange) {
        statistics.inFlight.add(1, ordering: .relaxed)
        let (accepted, first) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.stopping else { return (false, false) }
            inbox.commands.append(.start(exchange))
            return (true, inbox.commands.count == 1)
        }
        guard accepted else {
            // On the caller's thread, so not `finish`: the exchange never reached the loop's state.
            answer(exchange, .failure(.shutDown))
            return
        }
        guard first else { return }
        // On the host's own thread no wake-up is needed: the host turns this loop before it waits.
        if isHostedOnCurrentThread {
            hostPending = true
        } else {
            poller.wake()
        }
    }

    /// Aborts an exchange if it is still running (or marks it so it never starts).
    func cancel(_ exchange: DirectExchange) {
        exchange.cancelled.store(true, ordering: .sequentiallyConsistent)
        post(.cancel(exchange))
    }

    /// Ends the thread; exchanges still running fail with `shutDown`, later ones too.
    func stop() {
        inbox.withLock { $0.stopping = true }
        poller.wake()
    }

    private func post(_ command: Command) {
        let first = inbox.withLock { inbox -> Bool in
            inbox.commands.append(command)
            return inbox.commands.count == 1
        }
        if first { poller.wake() }
    }

    private func run() {
        while turn(waitingUpTo: waitTimeout()) {}
    }

    /// One round on the loop's thread: the sockets epoll reports ready (waiting up to `timeout` ms,
    /// -1: until woken; nil: not asked, when the host knows nothing is ready), then the commands
    /// queued, then whatever is due. False once the loop has stopped.
    func turn(waitingUpTo timeout: Int32?) -> Bool {
        if let timeout { poller.wait(timeout: timeout) { ready in handle(ready) } }
        hostPending = false
        let stopping = inbox.withLock { inbox in
            swap(&commandScratch, &inbox.commands)
            return inbox.stopping
        }
        for command in commandScratch { handle(command) }
        commandScratch.removeAll(keepingCapacity: true)
        if stopping {
            flushQueuedConnections()
            shutDownEverything()
            return false
        }
        let now = Self.monotonicMilliseconds()
        if nextDeadline <= now { sweep(now: now) }
        flushQueuedConnections()
        return true
    }

    func waitTimeout() -> Int32 {
        guard nextDeadline != .max else { return -1 }
        return Int32(clamping: max(0, nextDeadline - Self.monotonicMilliseconds()))
    }

    static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    func noteDeadline(_ deadline: Int64) { nextDeadline = min(nextDeadline, deadline) }

    private func handle(_ command: Command) {
        switch command {
        case .start(let exchange):
            if exchange.cancelled.load(ordering: .sequentiallyConsistent) {
                finish(exchange, .failure(.cancelled))
                return
            }
            active[ObjectIdentifier(exchange)] = exchange
            noteDeadline(exchange.deadline)
            dispatch(exchange)
        case .cancel(let exchange):
            if active[ObjectIdentifier(exchange)] != nil { fail(exchange, .cancelled) }
        case .resolved(let key, let answer):
            resolved(key, answer)
        }
    }

    /// Fails what is due: exchanges past their deadline, connects past their timeout; closes idle
    /// connections past their age; sets the next deadline.
    private func sweep(now: Int64) {
        nextDeadline = .max
        for exchange in Array(active.values) {
            let connecting = exchange.connection.map { $0.state == .connecting || $0.state == .handshaking } ?? false
            if exchange.deadline <= now || (connecting && exchange.connection!.connectDeadline <= now) {
                fail(exchange, .timedOut)
                continue
            }
            noteDeadline(exchange.deadline)
            if connecting { noteDeadline(exchange.connection!.connectDeadline) }
        }
        for pool in pools.values {
            for connection in pool.idle where connection.idleSince + Self.maxIdleMilliseconds <= now {
                closeConnection(connection)
            }
            for connection in pool.idle { noteDeadline(connection.idleSince + Self.maxIdleMilliseconds) }
            for connection in pool.multiplexed where connection.streams.isEmpty {
                if connection.idleSince + Self.maxIdleMilliseconds <= now {
                    closeConnection(connection)
                } else {
                    noteDeadline(connection.idleSince + Self.maxIdleMilliseconds)
                }
            }
        }
    }

    /// Every exchange fails with `shutDown`; HTTP/2 connections send GOAWAY and TLS ones
    /// close_notify on their way out (`sayGoodbye`).
    private func shutDownEverything() {
        for exchange in Array(active.values) { fail(exchange, .shutDown) }
        for exchange in router.removeWaiting(where: { _ in true }) { finish(exchange, .failure(.shutDown)) }
        for connection in Array(connections.values) { closeConnection(connection, promoteWaiting: false) }
        resolver.stop()
    }

    /// Resumes the caller's continuation (once) and forgets the exchange.
    func finish(_ exchange: DirectExchange, _ result: Result<ClientResponse, ClientError>) {
        active[ObjectIdentifier(exchange)] = nil
        answer(exchange, result)
    }

    /// Resumes the caller's continuation (once) and counts the exchange done; touches nothing
    /// else of the loop, so any thread may call it for an exchange the loop never took.
    private func answer(_ exchange: DirectExchange, _ result: Result<ClientResponse, ClientError>) {
        guard let continuation = exchange.continuation else { return }
        exchange.continuation = nil
        statistics.inFlight.subtract(1, ordering: .relaxed)
        statistics.completed.add(1, ordering: .relaxed)
        continuation.resume(returning: result)
    }
}
