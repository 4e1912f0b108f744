import CCurl
import Foundation
import RelaySync
import Synchronization

/// The thread that drives libcurl through its socket interface: two multi handles (`ClientLane`:
/// one for origins that multiplex over HTTP/2, one for everything else) name the sockets to watch
/// and a timer each, the thread waits on one epoll instance and calls `curl_multi_socket_action`
/// on the lane whose socket is ready. Callers hand transfers over through a locked inbox and an
/// eventfd wake-up; `OriginRouter` picks each transfer's lane; each caller's continuation is
/// resumed when its transfer ends. No libcurl call ever runs on the cooperative pool.
///
/// `@unchecked Sendable`: `active`, `router`, the lanes and the multi handles' state are touched
/// only by the loop thread (libcurl runs the callbacks inside calls made there); everything shared
/// with other threads sits behind the `inbox` mutex, is atomic, or is the poller's eventfd.
final class ClientLoop: @unchecked Sendable {
    private enum Command {
        case start(Transfer)
        case cancel(Transfer)
    }

    private struct Inbox {
        var commands: [Command] = []
        var stopping = false
    }

    private let poller: ClientPoller
    private let lanes: [ClientLane]
    private let share: CurlShare
    private let inbox = Locked(Inbox())
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    private var router = OriginRouter<Transfer>()
    /// When to next look for transfers past their deadline that libcurl does not time out: held
    /// back by the router, or queued inside the multiplexed lane for a connection or stream.
    private var nextSweep: Int64?
    private static let sweepInterval: Int64 = 250
    let statistics: ClientStatisticsCounters
    /// Easy handles of finished transfers, for the next ones.
    let easyPool = CurlEasyPool(limit: 256)

    init(configuration: HTTPClientConfiguration, statistics: ClientStatisticsCounters) throws(ClientError) {
        guard let poller = ClientPoller() else { throw .transport("epoll is unavailable") }
        guard let share = CurlShare(),
            let multiplexed = ClientLane(.multiplexed, poller: poller, configuration: configuration),
            let parallel = ClientLane(.parallel, poller: poller, configuration: configuration)
        else { throw .transport("libcurl could not create its handles") }
        self.poller = poller
        self.share = share
        lanes = [multiplexed, parallel]
        self.statistics = statistics
    }

    /// Starts the thread; it keeps the loop alive until `stop()`.
    func startThread() {
        let thread = Thread { [self] in
            ThreadName.setCurrent("relay-client")
            run()
        }
        thread.name = "relay-client"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Queues a transfer; its continuation is resumed exactly once.
    ///
    /// Only the command that makes the inbox non-empty wakes the loop: the loop takes every
    /// command at once, so the others ride on that wake-up (a write to the eventfd and a thread
    /// wake-up less per transfer when calls arrive together).
    func submit(_ transfer: Transfer) {
        statistics.inFlight.add(1, ordering: .relaxed)
        let (accepted, first) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.stopping else { return (false, false) }
            inbox.commands.append(.start(transfer))
            return (true, inbox.commands.count == 1)
        }
        guard accepted else {
            finish(transfer, .failure(.shutDown))
            return
        }
        if first { poller.wake() }
    }

    /// Aborts a transfer if it is still running (or marks it so it never starts).
    func cancel(_ transfer: Transfer) {
        transfer.cancelled.store(true, ordering: .sequentiallyConsistent)
        let first = inbox.withLock { inbox -> Bool in
            inbox.commands.append(.cancel(transfer))
            return inbox.commands.count == 1
        }
        if first { poller.wake() }
    }

    /// Ends the thread; transfers still running fail with `shutDown`.
    func stop() {
        inbox.withLock { $0.stopping = true }
        poller.wake()
    }

    private func run() {
        while true {
            let (commands, stopping) = inbox.withLock { inbox in
                defer { inbox.commands.removeAll(keepingCapacity: true) }
                return (inbox.commands, inbox.stopping)
            }
            for command in commands { handle(command) }
            if stopping {
                for transfer in Array(active.values) { remove(transfer, .failure(.shutDown)) }
                for transfer in router.removeWaiting(where: { _ in true }) { finish(transfer, .failure(.shutDown)) }
                for lane in lanes { lane.detach() }
                return
            }
            for ready in poller.wait(timeout: waitTimeout()) where ready.lane < lanes.count {
                lanes[ready.lane].act(on: ready)
            }
            let now = Self.monotonicMilliseconds()
            for lane in lanes { lane.runTimer(now: now) }
            for lane in lanes { collectFinished(lane) }
            if let nextSweep, nextSweep <= now { sweep(now: now) }
        }
    }

    /// Until the earliest of the lanes' timers and the next sweep (-1: until woken).
    private func waitTimeout() -> Int32 {
        if nextSweep == nil && (router.waitingCount > 0 || lanes[0].transfers > 0) {
            nextSweep = Self.monotonicMilliseconds() + Self.sweepInterval
        }
        let earliest = (lanes.compactMap(\.deadline) + [nextSweep].compactMap { $0 }).min()
        guard let earliest else { return -1 }
        return Int32(clamping: max(0, earliest - Self.monotonicMilliseconds()))
    }

    static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    private func handle(_ command: Command) {
        switch command {
        case .start(let transfer):
            if transfer.cancelled.load(ordering: .sequentiallyConsistent) {
                finish(transfer, .failure(.cancelled))
                return
            }
            guard let origin = transfer.origin else {
                add(transfer, to: .parallel)
                return
            }
            switch router.route(origin, transfer) {
            case .probe:
                transfer.isProbe = true
                add(transfer, to: .multiplexed)
            case .held: break
            case .multiplexed: add(transfer, to: .multiplexed)
            case .parallel: add(transfer, to: .parallel)
            }
        case .cancel(let transfer):
            if active[transfer.easy.handle] === transfer {
                remove(transfer, .failure(.cancelled))
            } else {
                for held in router.removeWaiting(where: { $0 === transfer }) { finish(held, .failure(.cancelled)) }
            }
        }
    }

    private func add(_ transfer: Transfer, to kind: ClientLane.Kind) {
        let lane = lanes[kind.rawValue]
        transfer.easy.attach(share)
        // Wait for a connection that can multiplex rather than open one more alongside it.
        transfer.easy.set(CURLOPT_PIPEWAIT, kind == .multiplexed ? 1 : 0)
        guard curl_multi_add_handle(lane.multi.handle, transfer.easy.handle) == CURLM_OK else {
            finish(transfer, .failure(.transport("libcurl refused the transfer")))
            return
        }
        transfer.lane = kind
        lane.transfers += 1
        active[transfer.easy.handle] = transfer
    }

    private func collectFinished(_ lane: ClientLane) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(lane.multi.handle, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                let transfer = active[handle]
            else { continue }
            let code = message.pointee.data.result
            remove(transfer, TransferOutcome.result(of: transfer, code: code))
        }
    }

    /// Fails the transfers past their deadline that libcurl is not timing out itself.
    private func sweep(now: Int64) {
        nextSweep = nil
        let late = active.values.filter { $0.lane == .multiplexed && $0.deadline <= now }
        for transfer in late { remove(transfer, .failure(.timedOut)) }
        for transfer in router.removeWaiting(where: { $0.deadline <= now }) { finish(transfer, .failure(.timedOut)) }
    }

    private func remove(_ transfer: Transfer, _ result: Result<ClientResponse, ClientError>) {
        let opened = transfer.easy.info(CURLINFO_NUM_CONNECTS)
        statistics.connectionsOpened.add(opened, ordering: .relaxed)
        if let kind = transfer.lane {
            let lane = lanes[kind.rawValue]
            curl_multi_remove_handle(lane.multi.handle, transfer.easy.handle)
            lane.transfers -= 1
        }
        active[transfer.easy.handle] = nil
        learn(from: transfer, result)
        finish(transfer, result)
        easyPool.recycle(transfer.easy)
    }

    /// What the answer says about its origin; the exchanges held back for it go where it says.
    private func learn(from transfer: Transfer, _ result: Result<ClientResponse, ClientError>) {
        guard let origin = transfer.origin else { return }
        switch result {
        case .success(let response):
            let multiplexes = response.httpVersion == "2" || response.httpVersion == "3"
            let (route, released) = router.answered(origin, multiplexes: multiplexes)
            for held in released { add(held, to: route == .multiplexed ? .multiplexed : .parallel) }
        case .failure:
            guard transfer.isProbe else { return }
            for held in router.probeFailed(origin) { add(held, to: .multiplexed) }
        }
    }

    private func finish(_ transfer: Transfer, _ result: Result<ClientResponse, ClientError>) {
        statistics.inFlight.subtract(1, ordering: .relaxed)
        statistics.completed.add(1, ordering: .relaxed)
        let continuation = transfer.continuation
        transfer.continuation = nil
        continuation?.resume(returning: result)
    }
}
