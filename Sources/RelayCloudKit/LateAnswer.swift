import RelayHTTP
import Synchronization

/// A CloudKit call whose caller stopped waiting at `CloudKitConfiguration.timeout` while the
/// transfer goes on listening, for at most `lateAnswerWait` more. CloudKit may have carried the
/// call out (a hung CloudKit that answers late): with strict rotation (Apple's documented rule:
/// every answer names a new token, the old one dies at once) that answer holds the only live
/// token, so the caller saves `rotatedToken()` like a successful call's instead of losing it.
package final class LateAnswer: Sendable, Equatable {
    private let transfer: Task<Result<ClientResponse, ClientError>, Never>

    init(_ transfer: Task<Result<ClientResponse, ClientError>, Never>) { self.transfer = transfer }

    /// The token CloudKit rotated to in the late answer (a refusal's too), or nil when no answer came
    /// within the wait or it named none.
    package func rotatedToken() async -> CloudKitWebAuthToken? {
        guard case .success(let response) = await transfer.value else { return nil }
        return CloudKitClient.rotatedToken(of: response)
    }

    /// Whether an answer came within the wait (a refusal that names no token, such as the 421 of a
    /// call that lost the race for the token, counts).
    package func arrived() async -> Bool {
        guard case .success = await transfer.value else { return false }
        return true
    }

    package static func == (lhs: LateAnswer, rhs: LateAnswer) -> Bool { lhs === rhs }
}

/// The first of "the transfer finished", "the caller's timeout passed" and "the caller was cancelled", for one call.
final class FirstOutcome: Sendable {
    enum Outcome: Sendable {
        case finished(Result<ClientResponse, ClientError>)
        case timedOut
        /// The caller was cancelled (the transfer goes on).
        case cancelled
    }

    private struct State {
        var outcome: Outcome?
        var waiter: CheckedContinuation<Outcome, Never>?
    }

    private let state = Mutex(State())

    /// Records `outcome` unless another came first.
    func settle(_ outcome: Outcome) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// The first outcome, once there is one.
    func wait() async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let ready = state.withLock { state -> Outcome? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
