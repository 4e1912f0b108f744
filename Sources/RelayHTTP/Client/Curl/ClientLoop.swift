import CCurl
import Foundation
import RelaySync
import Synchronization

/// The thread that drives libcurl's multi handle through its socket interface: libcurl names the
/// sockets to watch and a timer (callbacks below), the thread waits on epoll and calls
/// `curl_multi_socket_action` for whatever is ready. Callers hand transfers over through a locked
/// inbox and an eventfd wake-up; each caller's continuation is resumed when its transfer ends.
/// No libcurl call ever runs on the cooperative pool.
///
/// `@unchecked Sendable`: `active`, `deadline` and the multi handle's state are touched only by
/// the loop thread (libcurl runs the callbacks inside calls made there); everything shared with
/// other threads sits behind the `inbox` mutex, is atomic, or is the poller's eventfd.
final class ClientLoop: @unchecked Sendable {
    private enum Command {
        case start(Transfer)
        case cancel(Transfer)
    }

    private struct Inbox {
        var commands: [Command] = []
        var stopping = false
    }

    private let multi: CurlMulti
    private let poller: ClientPoller
    private let inbox = Locked(Inbox())
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    /// When libcurl wants `CURL_SOCKET_TIMEOUT` next (ms on the monotonic clock); nil: no timer.
    var deadline: Int64?
    let statistics: ClientStatisticsCounters
    /// Easy handles of finished transfers, for the next ones.
    let easyPool = CurlEasyPool(limit: 256)

    init(configuration: HTTPClientConfiguration, statistics: ClientStatisticsCounters) throws(ClientError) {
        guard
            let multi = CurlMulti(
                maxIdleConnections: configuration.maxIdleConnections,
                maxConnectionsPerHost: configuration.maxConnectionsPerHost)
        else { throw .transport("libcurl could not create a multi handle") }
        guard let poller = ClientPoller() else { throw .transport("epoll is unavailable") }
        self.multi = multi
        self.poller = poller
        self.statistics = statistics
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = relay_curl_multi_setopt_socket(multi.handle, clientLoopSocket)
        _ = relay_curl_multi_setopt_pointer(multi.handle, CURLMOPT_SOCKETDATA, context)
        _ = relay_curl_multi_setopt_timer(multi.handle, clientLoopTimer)
        _ = relay_curl_multi_setopt_pointer(multi.handle, CURLMOPT_TIMERDATA, context)
    }

    /// libcurl's socket callback: watch `fd` as asked.
    func watch(_ fd: Int32, what: Int32) {
        poller.watch(
            fd, read: what == CURL_POLL_IN || what == CURL_POLL_INOUT,
            write: what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
    }

    /// Starts the thread; it keeps the loop alive until `stop()`.
    func startThread() {
        let thread = Thread { [self] in run() }
        thread.name = "relay-http-client"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Queues a transfer; its continuation is resumed exactly once.
    func submit(_ transfer: Transfer) {
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stopping else { return false }
            inbox.commands.append(.start(transfer))
            return true
        }
        guard accepted else {
            finish(transfer, .failure(.shutDown))
            return
        }
        poller.wake()
    }

    /// Aborts a transfer if it is still running (or marks it so it never starts).
    func cancel(_ transfer: Transfer) {
        transfer.cancelled.store(true, ordering: .sequentiallyConsistent)
        inbox.withLock { $0.commands.append(.cancel(transfer)) }
        poller.wake()
    }

    /// Ends the thread; transfers still running fail with `shutDown`.
    func stop() {
        inbox.withLock { $0.stopping = true }
        poller.wake()
    }

    private func run() {
        var running: Int32 = 0
        while true {
            let (commands, stopping) = inbox.withLock { inbox in
                defer { inbox.commands.removeAll(keepingCapacity: true) }
                return (inbox.commands, inbox.stopping)
            }
            for command in commands { handle(command) }
            if stopping {
                for transfer in Array(active.values) { remove(transfer, .failure(.shutDown)) }
                // The multi handle may outlive this loop's thread; its cleanup must not call back.
                _ = relay_curl_multi_setopt_socket(multi.handle, nil)
                _ = relay_curl_multi_setopt_timer(multi.handle, nil)
                return
            }
            var timeout: Int32 = -1
            if let deadline { timeout = Int32(clamping: max(0, deadline - Self.monotonicMilliseconds())) }
            for ready in poller.wait(timeout: timeout) {
                var mask: Int32 = 0
                if ready.readable { mask |= CURL_CSELECT_IN }
                if ready.writable { mask |= CURL_CSELECT_OUT }
                if ready.failed { mask |= CURL_CSELECT_ERR }
                curl_multi_socket_action(multi.handle, ready.fd, mask, &running)
            }
            if let deadline, deadline <= Self.monotonicMilliseconds() {
                self.deadline = nil
                curl_multi_socket_action(multi.handle, CURL_SOCKET_TIMEOUT, 0, &running)
            }
            collectFinished()
        }
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
            } else if curl_multi_add_handle(multi.handle, transfer.easy.handle) == CURLM_OK {
                active[transfer.easy.handle] = transfer
                statistics.inFlight.add(1, ordering: .relaxed)
            } else {
                finish(transfer, .failure(.transport("libcurl refused the transfer")))
            }
        case .cancel(let transfer):
            if active[transfer.easy.handle] === transfer { remove(transfer, .failure(.cancelled)) }
        }
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi.handle, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                let transfer = active[handle]
            else { continue }
            let code = message.pointee.data.result
            remove(transfer, TransferOutcome.result(of: transfer, code: code))
        }
    }

    private func remove(_ transfer: Transfer, _ result: Result<ClientResponse, ClientError>) {
        let opened = transfer.easy.info(CURLINFO_NUM_CONNECTS)
        statistics.connectionsOpened.add(opened, ordering: .relaxed)
        curl_multi_remove_handle(multi.handle, transfer.easy.handle)
        active[transfer.easy.handle] = nil
        statistics.inFlight.subtract(1, ordering: .relaxed)
        finish(transfer, result)
        easyPool.recycle(transfer.easy)
    }

    private func finish(_ transfer: Transfer, _ result: Result<ClientResponse, ClientError>) {
        statistics.completed.add(1, ordering: .relaxed)
        let continuation = transfer.continuation
        transfer.continuation = nil
        continuation?.resume(returning: result)
    }
}
