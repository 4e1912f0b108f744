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
        condition.signal()
        return .queued
    }

    enum PushResult { case queued, full, closed }

    /// Waits for up to `maximum` jobs; an empty result means the queue was closed and drained.
    func take(maximum: Int) -> [Job] {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count && !closed { condition.wait() }
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
