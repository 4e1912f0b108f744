import RelaySync

/// Something with a deadline that the watchdog can give up on.
protocol Expirable: AnyObject, Sendable {
    var deadline: ContinuousClock.Instant { get }
    /// Gives up: the waiting caller gets a timeout error; the work, if not started, never runs.
    func expire()
    /// Answers the caller with `error` (the work could not run, or its batch did not commit).
    func fail(_ error: StoreError)
}

/// The caller's side of one store operation. It is resumed exactly once: by a database thread
/// with the result, or by the watchdog when the deadline passes, whichever comes first.
final class Ticket<Value: Sendable>: Expirable {
    private enum State {
        case waiting(CheckedContinuation<Result<Value, StoreError>, Never>)
        case running(CheckedContinuation<Result<Value, StoreError>, Never>)
        case finished
    }

    let deadline: ContinuousClock.Instant
    private let state: Locked<State>

    init(deadline: ContinuousClock.Instant, continuation: CheckedContinuation<Result<Value, StoreError>, Never>) {
        self.deadline = deadline
        self.state = Locked(.waiting(continuation))
    }

    /// Called by the database thread before doing the work; false means the caller already gave up
    /// and the work must be skipped.
    func start() -> Bool {
        state.withLock { state in
            guard case .waiting(let continuation) = state else { return false }
            state = .running(continuation)
            return true
        }
    }

    /// Delivers the result, unless the caller was already answered.
    func finish(_ result: Result<Value, StoreError>) {
        let continuation = state.withLock { state -> CheckedContinuation<Result<Value, StoreError>, Never>? in
            switch state {
            case .waiting(let continuation), .running(let continuation):
                state = .finished
                return continuation
            case .finished:
                return nil
            }
        }
        continuation?.resume(returning: result)
    }

    func fail(_ error: StoreError) {
        finish(.failure(error))
    }

    func expire() {
        let answer = state.withLock { state -> (CheckedContinuation<Result<Value, StoreError>, Never>, StoreError)? in
            switch state {
            case .waiting(let continuation):
                state = .finished
                return (continuation, .unavailable("timed out waiting for the database; nothing was done"))
            case .running(let continuation):
                state = .finished
                return (continuation, .unavailable("timed out while the database worked; the outcome is unknown"))
            case .finished:
                return nil
            }
        }
        answer.map { $0.0.resume(returning: .failure($0.1)) }
    }
}
