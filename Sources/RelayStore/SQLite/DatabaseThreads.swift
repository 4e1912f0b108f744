import Foundation
import RelaySync

/// Work for a reader thread.
struct ReadJob: Sendable {
    let ticket: any Expirable
    let perform: @Sendable (SQLiteConnection) -> Void
}

/// Work for the writer thread. `perform` runs inside the batch's transaction and returns how to
/// answer the caller once the batch has committed (nil) or failed (the error).
struct WriteJob: Sendable {
    let ticket: any Expirable
    let perform: @Sendable (SQLiteConnection) -> @Sendable (StoreError?) -> Void
}

/// The threads that own the SQLite connections: one writer that commits queued writes in batches
/// (group commit: one transaction and one fsync for every write waiting at that moment), a few
/// readers sharing one queue, a checkpointer that copies the WAL into the database file off the
/// commit path, and a watchdog that answers callers whose deadline passed. Callers suspend on
/// continuations; no SQLite call ever runs on the cooperative pool.
final class DatabaseThreads: Sendable {
    let readQueue: JobQueue<ReadJob>
    let writeQueue: JobQueue<WriteJob>
    private let inFlight = InFlight()
    private let finished = DispatchGroup()
    /// Stops the checkpointer when the store closes.
    private let closing = Stopper()
    /// Stops the watchdog once every connection is closed.
    private let stopped = Stopper()
    private let operationTimeout: Duration

    init(
        writer: SQLiteConnection, readers: [SQLiteConnection], checkpointer: SQLiteConnection,
        configuration: SQLiteStore.Configuration
    ) {
        operationTimeout = configuration.operationTimeout
        readQueue = JobQueue(capacity: configuration.maxPendingOperations) { $0.ticket.deadline }
        writeQueue = JobQueue(capacity: configuration.maxPendingOperations) { $0.ticket.deadline }
        let hook = configuration.beforeEachBatch
        let batchSize = configuration.maxBatchSize
        let linger =
            configuration.groupCommitLinger > .zero
            ? JobQueue<WriteJob>.Linger(duration: configuration.groupCommitLinger, target: batchSize) : nil
        let commits = configuration.afterEachCommit
        start("writer", owning: writer) { [writeQueue, inFlight] connection in
            Self.runWriter(
                connection, queue: writeQueue, inFlight: inFlight, batchSize: batchSize, linger: linger,
                hooks: (hook, commits))
        }
        for (index, reader) in readers.enumerated() {
            start("reader-\(index)", owning: reader) { [readQueue, inFlight] connection in
                Self.runReader(connection, slot: index + 1, queue: readQueue, inFlight: inFlight, hook: hook)
            }
        }
        let interval = configuration.checkpointInterval
        start("checkpointer", owning: checkpointer) { [closing] connection in
            Checkpointer.run(connection, every: interval, until: closing)
        }
        let tick = max(min(configuration.operationTimeout / 5, .milliseconds(100)), .milliseconds(5))
        let watchdog = Thread { [weak self, stopped] in
            ThreadName.setCurrent("sqlite-watchdog")
            while stopped.sleep(for: tick), let self { self.expireOverdue() }
        }
        watchdog.name = "sqlite-watchdog"
        watchdog.start()
    }

    /// Runs `body` on a reader connection.
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> T)
        async throws(StoreError) -> T
    {
        let deadline = ContinuousClock.now + operationTimeout
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<T, StoreError>, Never>) in
            let ticket = Ticket(deadline: deadline, continuation: continuation)
            let job = ReadJob(ticket: ticket) { connection in
                guard ticket.start() else { return }
                ticket.finish(Result { () throws(StoreError) -> T in try body(connection) })
            }
            Self.answerRefusal(readQueue.push(job), ticket)
        }
        return try result.get()
    }

    /// Runs `body` on the writer connection inside a transaction; answers after the commit.
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> T)
        async throws(StoreError) -> T
    {
        let deadline = ContinuousClock.now + operationTimeout
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<T, StoreError>, Never>) in
            let ticket = Ticket(deadline: deadline, continuation: continuation)
            let job = WriteJob(ticket: ticket) { connection in
                guard ticket.start() else { return { _ in } }
                let result = Result { () throws(StoreError) -> T in try body(connection) }
                return { batchError in
                    if case .success = result, let batchError {
                        ticket.finish(.failure(batchError))
                    } else {
                        ticket.finish(result)
                    }
                }
            }
            Self.answerRefusal(writeQueue.push(job), ticket)
        }
        return try result.get()
    }

    /// Stops taking work; queued work still runs. Returns once every connection is closed.
    func shutdown() async {
        readQueue.close()
        writeQueue.close()
        closing.stop()
        await withCheckedContinuation { continuation in
            finished.notify(queue: .global()) { continuation.resume() }
        }
        stopped.stop()
    }

    /// Stops without waiting (the owner is gone).
    func shutdownInBackground() {
        readQueue.close()
        writeQueue.close()
        closing.stop()
        finished.notify(queue: .global()) { [stopped] in stopped.stop() }
    }

    private static func answerRefusal(_ result: JobQueue<some Sendable>.PushResult, _ ticket: any Expirable) {
        switch result {
        case .queued: break
        case .full: ticket.fail(.throttled)
        case .closed: ticket.fail(.unavailable("the store is closed"))
        }
    }

    private func expireOverdue() {
        let now = ContinuousClock.now
        for job in readQueue.removeOverdue(now: now) { job.ticket.expire() }
        for job in writeQueue.removeOverdue(now: now) { job.ticket.expire() }
        for ticket in inFlight.all() where ticket.deadline <= now { ticket.expire() }
    }

    /// Starts a thread that owns `connection`: the connection is closed when `body` returns,
    /// before the thread reports itself finished.
    private func start(
        _ name: String, owning connection: SQLiteConnection, _ body: @escaping @Sendable (SQLiteConnection) -> Void
    ) {
        let handoff = Handoff(connection)
        finished.enter()
        let threadName = "sqlite-\(name)"
        let thread = Thread { [finished] in
            ThreadName.setCurrent(threadName)
            do {
                let connection = handoff.take()
                body(connection)
            }
            finished.leave()
        }
        thread.name = threadName
        thread.start()
    }

    private static func runReader(
        _ connection: SQLiteConnection, slot: Int, queue: JobQueue<ReadJob>, inFlight: InFlight,
        hook: (@Sendable () -> Void)?
    ) {
        while let job = queue.take(maximum: 1).first {
            inFlight.set(slot, [job.ticket])
            hook?()
            job.perform(connection)
            inFlight.set(slot, [])
        }
    }

    /// Commits batches until the queue closes. The writer lingers (waits up to `linger` for a fuller
    /// batch, so that one fsync covers more writes) only while writes keep coming: some arrived
    /// while the last batch was committing (counted before its callers are answered, so a caller's
    /// own next write does not count), or the last batch held several and the next write came
    /// soon. An idle writer commits a lone write at once, and a single caller writing one write
    /// after another never waits for company that cannot come.
    private static func runWriter(
        _ connection: SQLiteConnection, queue: JobQueue<WriteJob>, inFlight: InFlight, batchSize: Int,
        linger: JobQueue<WriteJob>.Linger?, hooks: Hooks
    ) {
        var busy = false
        var previous = 0
        while true {
            let batch = queue.take(maximum: batchSize, linger: linger, busy: busy, afterBatch: previous > 1)
            guard !batch.isEmpty else { return }
            previous = batch.count
            inFlight.set(0, batch.map(\.ticket))
            busy = commit(batch, on: connection, hooks: hooks) { queue.snapshot.queued > 0 }
            inFlight.set(0, [])
        }
    }

    typealias Hooks = (beforeEach: (@Sendable () -> Void)?, afterCommit: (@Sendable (Int) -> Void)?)

    /// One transaction for the whole batch. A job's own failure (a condition, a bad statement)
    /// affects only that job; a failed BEGIN or COMMIT fails every job, and none is acknowledged.
    /// Returns `arrivals()` as it was once the batch ended, before any caller was answered.
    private static func commit(
        _ batch: [WriteJob], on connection: SQLiteConnection, hooks: Hooks, arrivals: () -> Bool
    ) -> Bool {
        do {
            try connection.run(cached: "BEGIN IMMEDIATE")
        } catch {
            for job in batch { job.ticket.fail(error) }
            return false
        }
        hooks.beforeEach?()
        let answers = batch.map { $0.perform(connection) }
        var batchError: StoreError?
        if connection.isInTransaction {
            do {
                try connection.run(cached: "COMMIT")
                hooks.afterCommit?(batch.count)
            } catch {
                batchError = error
                try? connection.run(cached: "ROLLBACK")
            }
        } else {
            batchError = .unavailable("the database rolled the transaction back")
        }
        let arrived = arrivals()
        for answer in answers { answer(batchError) }
        return arrived
    }
}

/// The tickets each thread is working on, for the watchdog (slot 0: writer, then readers).
private final class InFlight: Sendable {
    private let slots = Locked<[Int: [any Expirable]]>([:])

    func set(_ slot: Int, _ tickets: [any Expirable]) {
        slots.withLock { $0[slot] = tickets }
    }

    func all() -> [any Expirable] {
        slots.withLock { Array($0.values.joined()) }
    }
}

/// Moves a connection into its thread so that only the thread holds it.
///
/// `@unchecked Sendable`: `connection` is written once in `init` and read once by `take()`, on the
/// owning thread, which the `Thread` start orders after `init`.
private final class Handoff: @unchecked Sendable {
    private var connection: SQLiteConnection?

    init(_ connection: SQLiteConnection) {
        self.connection = connection
    }

    func take() -> SQLiteConnection {
        defer { connection = nil }
        return connection!
    }
}
