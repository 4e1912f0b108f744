import Foundation

/// A bounded FIFO of jobs for database threads: producers never block (a full queue refuses), and
/// consumers wait on a condition variable.
///
/// `@unchecked Sendable`: every stored property is read and written only while `condition` is
/// locked.
final class JobQueue<Job: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var head = 0
    private var closed = false
    /// How many queued jobs wake the consumer: 1, except while the writer lingers for a fuller batch,
    /// so that the writes arriving meanwhile do not each wake it.
    private var wakeAt = 1
    private var lingering = false
    private var lingersBegun = 0
    private let capacity: Int
    private let deadline: (Job) -> ContinuousClock.Instant

    init(capacity: Int, deadline: @escaping (Job) -> ContinuousClock.Instant) {
        self.capacity = capacity
        self.deadline = deadline
    }

    /// Queues a job; false when the queue is full or closed.
    func push(_ job: Job) -> PushResult {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return .closed }
        guard jobs.count - head < capacity else { return .full }
        jobs.append(job)
        if jobs.count - head >= wakeAt { condition.signal() }
        return .queued
    }

    enum PushResult { case queued, full, closed }

    /// Waits for up to `maximum` jobs; an empty result means the queue was closed and drained.
    func take(maximum: Int) -> [Job] {
        take(maximum: maximum, linger: nil, busy: false, afterBatch: false)
    }

    /// How long to wait for a fuller batch once work is there, and how full is full.
    struct Linger {
        var duration: Duration
        var target: Int
    }

    /// Waits for at least one job, then returns up to `maximum`, lingering first for a fuller batch
    /// (until `linger.target` jobs are queued or `linger.duration` has passed; closing ends it too)
    /// when writes keep coming: `busy` (the consumer saw jobs arrive while it worked on the last
    /// batch), or `afterBatch` (the last batch held several) and the first job came within
    /// `linger.duration`. A consumer that found the queue idle for longer never lingers.
    func take(maximum: Int, linger: Linger?, busy: Bool, afterBatch: Bool) -> [Job] {
        condition.lock()
        defer { condition.unlock() }
        var busy = busy
        if head == jobs.count && !closed {
            let start = ContinuousClock.now
            while head == jobs.count && !closed { condition.wait() }
            busy = busy || (afterBatch && linger.map { ContinuousClock.now - start < $0.duration } ?? false)
        }
        if busy, let linger, !closed, jobs.count - head < min(linger.target, maximum) {
            let deadline = Date(timeIntervalSinceNow: linger.duration.seconds)
            wakeAt = min(linger.target, maximum)
            lingering = true
            lingersBegun += 1
            while jobs.count - head < wakeAt && !closed {
                if !condition.wait(until: deadline) { break }
            }
            lingering = false
            wakeAt = 1
        }
        let end = min(jobs.count, head + maximum)
        let batch = Array(jobs[head..<end])
        head = end
        compact()
        return batch
    }

    /// Removes the jobs at the front whose deadline has passed (every job waits the same timeout,
    /// so overdue jobs are always at the front).
    func removeOverdue(now: ContinuousClock.Instant) -> [Job] {
        condition.lock()
        defer { condition.unlock() }
        var overdue: [Job] = []
        while head < jobs.count, deadline(jobs[head]) <= now {
            overdue.append(jobs[head])
            head += 1
        }
        compact()
        return overdue
    }

    /// Jobs queued and not yet taken (the writer's linger decision), and for tests whether the
    /// consumer is lingering now and how
    /// many lingers it has begun.
    var snapshot: (queued: Int, lingering: Bool, lingers: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (jobs.count - head, lingering, lingersBegun)
    }

    /// Refuses new jobs; consumers finish what is queued, then get an empty batch.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    private func compact() {
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: jobs.capacity <= 4096)
            head = 0
        } else if head > 1024 && head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
    }
}
