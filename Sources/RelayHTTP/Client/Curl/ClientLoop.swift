import CCurl
import Foundation
import Synchronization

/// The thread that drives libcurl's multi handle. Callers hand transfers over through a locked
/// inbox and a `curl_multi_wakeup`; the thread adds them, runs `curl_multi_perform`, and resumes
/// each caller's continuation when its transfer ends. No libcurl call ever runs on the
/// cooperative pool.
///
/// `@unchecked Sendable`: `active` and the multi handle's state are touched only by the loop
/// thread; everything shared with other threads sits behind the `inbox` mutex or is atomic.
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
    private let inbox = Mutex(Inbox())
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    let statistics: ClientStatisticsCounters

    init(configuration: HTTPClientConfiguration, statistics: ClientStatisticsCounters) throws(ClientError) {
        guard
            let multi = CurlMulti(
                maxIdleConnections: configuration.maxIdleConnections,
                maxConnectionsPerHost: configuration.maxConnectionsPerHost)
        else { throw .transport("libcurl could not create a multi handle") }
        self.multi = multi
        self.statistics = statistics
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
        multi.wakeup()
    }

    /// Aborts a transfer if it is still running (or marks it so it never starts).
    func cancel(_ transfer: Transfer) {
        transfer.cancelled.store(true, ordering: .sequentiallyConsistent)
        inbox.withLock { $0.commands.append(.cancel(transfer)) }
        multi.wakeup()
    }

    /// Ends the thread; transfers still running fail with `shutDown`.
    func stop() {
        inbox.withLock { $0.stopping = true }
        multi.wakeup()
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
                return
            }
            curl_multi_perform(multi.handle, &running)
            collectFinished()
            var ready: Int32 = 0
            curl_multi_poll(multi.handle, nil, 0, 1000, &ready)
        }
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
    }

    private func finish(_ transfer: Transfer, _ result: Result<ClientResponse, ClientError>) {
        statistics.completed.add(1, ordering: .relaxed)
        let continuation = transfer.continuation
        transfer.continuation = nil
        continuation?.resume(returning: result)
    }
}
