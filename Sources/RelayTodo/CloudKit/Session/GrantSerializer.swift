import RelayCloudKit
import RelaySync

/// One CloudKit call per grant in flight: `run` waits until no other call of the same grant runs, in arrival
/// order. Waiting is bounded: when `maxWaiting` calls of one grant already wait, a new one fails at once with
/// `CloudKitError(.throttled)` (no status, `retryAfter` 1 s), which the tools report as `RATE_LIMITED`.
/// A waiting call whose task is cancelled leaves the queue at once with `.cancelled`. A grant with nothing
/// running keeps no memory here.
///
/// Share one serializer per process: `CloudKitSession` implementations call `run(grant:_:)` around
/// "read token → call → store rotated token", so no call goes out with a token the previous reply replaced.
package final class GrantSerializer: Sendable {
    private struct Lane {
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Admission, Never>)] = []
    }

    private struct State {
        var lanes: [String: Lane] = [:]
        var nextID: UInt64 = 0
        /// Remainders (`runWithRemainder(grant:_:)`) still running, and who waits for them to finish.
        var remainders = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Work a call leaves to run after its caller has the answer, still in the grant's turn.
    package typealias Remainder = @Sendable () async -> Void

    /// Calls of one grant that may wait behind the running one.
    package let maxWaiting: Int
    private let state = Locked(State())

    /// A serializer; `maxWaiting` calls of one grant may wait (at least 0).
    package init(maxWaiting: Int = 32) { self.maxWaiting = max(0, maxWaiting) }

    /// Grants with a call running right now.
    package var activeGrants: Int { state.withLock { $0.lanes.count } }

    /// Calls of `grant` waiting behind the running one.
    package func waiting(for grant: String) -> Int { state.withLock { $0.lanes[grant]?.waiting.count ?? 0 } }

    /// Runs `body` once no other `run` for `grant` is running.
    @discardableResult
    package func run<Value>(
        grant: String, _ body: () async throws(CloudKitError) -> Value
    ) async throws(CloudKitError) -> Value {
        try await acquire(grant)
        defer { release(grant) }
        return try await body()
    }

    /// Runs `body` once no other call of `grant` is running, like `run`, but `body` may leave part
    /// of its work to the `Remainder` it returns: the caller gets the value at once, the remainder
    /// runs in a new task (on the caller's task executor, not cancelled with the caller) still
    /// holding the grant, and the grant's next call starts only after the remainder has finished.
    /// `remaindersFinished()` waits for every remainder, for a graceful shutdown.
    package func runWithRemainder<Value>(
        grant: String, _ body: () async throws(CloudKitError) -> (Value, Remainder?)
    ) async throws(CloudKitError) -> Value {
        try await acquire(grant)
        let value: Value
        let remainder: Remainder?
        do {
            (value, remainder) = try await body()
        } catch {
            release(grant)
            throw error
        }
        guard let remainder else {
            release(grant)
            return value
        }
        state.withLock { $0.remainders += 1 }
        // The loop thread that ran the call runs its remainder too: no hop to another thread.
        let executor = withUnsafeCurrentTask { $0?.unownedTaskExecutor?.asTaskExecutor() }
        Task(executorPreference: executor) {
            await remainder()
            self.release(grant)
            self.remainderFinished()
        }
        return value
    }

    /// Returns once no remainder is running (new ones may start afterwards: stop the callers first).
    package func remaindersFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.remainders > 0 else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func remainderFinished() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.remainders -= 1
            guard state.remainders == 0 else { return [] }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private enum Admission {
        case granted
        case full
        case cancelled
    }

    private func acquire(_ grant: String) async throws(CloudKitError) {
        // Fast path without suspending: nobody holds the grant.
        let free = state.withLock { state -> Bool in
            guard state.lanes[grant] == nil else { return false }
            state.lanes[grant] = Lane()
            return true
        }
        if free { return }
        let id = state.withLock { state -> UInt64 in
            state.nextID &+= 1
            return state.nextID
        }
        let admission = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Admission, Never>) in
                // Decided and queued under one lock: the holder may have released since the fast path, and a
                // cancellation after this point finds the waiter in the queue.
                let immediate = state.withLock { state -> Admission? in
                    if Task.isCancelled { return .cancelled }
                    guard var lane = state.lanes[grant] else {
                        state.lanes[grant] = Lane()
                        return .granted
                    }
                    guard lane.waiting.count < maxWaiting else { return .full }
                    lane.waiting.append((id, continuation))
                    state.lanes[grant] = lane
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Admission, Never>? in
                guard let index = state.lanes[grant]?.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.lanes[grant]?.waiting.remove(at: index).continuation
            }
            continuation?.resume(returning: .cancelled)
        }
        switch admission {
        case .granted: return
        case .full:
            throw CloudKitError(.throttled, reason: "too many calls of this grant are waiting", retryAfter: .seconds(1))
        case .cancelled: throw CloudKitError(.cancelled)
        }
    }

    /// Hands the grant to the next waiter, or forgets the grant when nobody waits.
    private func release(_ grant: String) {
        let next = state.withLock { state -> CheckedContinuation<Admission, Never>? in
            guard var lane = state.lanes[grant], !lane.waiting.isEmpty else {
                state.lanes[grant] = nil
                return nil
            }
            let first = lane.waiting.removeFirst()
            state.lanes[grant] = lane
            return first.continuation
        }
        next?.resume(returning: .granted)
    }
}
