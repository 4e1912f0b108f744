import RelayStore
import RelaySync

/// The fetches of client metadata documents in flight in this process, one per URL
/// (single-flight: every request that needs a document while it is being fetched waits for that
/// fetch, and no host sees two fetches of one document at once from this instance), and the
/// back-off after a failed one, so a document host that is down is asked again at most every
/// few seconds to a few minutes rather than on every request.
final class DocumentFetches: Sendable {
    /// What one fetch found.
    enum Outcome: Sendable {
        /// The document, validated and cached.
        case loaded(RegisteredClient)
        /// The document is gone (404, 410) or refused by the rules: its cached copy was dropped.
        case refused(OAuthError)
        /// The host failed (transport error, timeout, 5xx, an error page): try the cached copy.
        case unavailable
    }

    private struct Backoff {
        var failures: Int
        var until: Int
    }

    private let running = Locked<[String: Task<Outcome, Never>]>([:])
    private let backoff = Locked<[String: Backoff]>([:])
    /// URLs remembered in back-off at most (an attacker can name any number of URLs).
    private let capacity = 10_000

    /// The fetch of `url` in flight, or a new one running `fetch`. The fetch runs to its end even
    /// when every caller has stopped waiting for it, so its result is cached for the next request.
    func join(_ url: String, fetch: @escaping @Sendable () async -> Outcome) -> Task<Outcome, Never> {
        running.withLock { running in
            if let task = running[url] { return task }
            let task = Task {
                let outcome = await fetch()
                self.running.withLock { $0[url] = nil }
                return outcome
            }
            running[url] = task
            return task
        }
    }

    /// `task`'s outcome, or nil when it has not finished within `wait` (it goes on without us).
    ///
    /// Not a task group: a group waits for all its children, and a child awaiting `task.value`
    /// cannot be cancelled, so the caller would wait for the whole fetch after all.
    static func outcome(of task: Task<Outcome, Never>, within wait: Duration?) async -> Outcome? {
        guard let wait else { return await task.value }
        let answered = Locked(false)
        /// True for the first caller only: the continuation is resumed exactly once.
        @Sendable func first() -> Bool {
            answered.withLock { done in
                defer { done = true }
                return !done
            }
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Outcome?, Never>) in
            let timer = Task {
                try? await Task.sleep(for: wait)
                if first() { continuation.resume(returning: nil) }
            }
            Task {
                let outcome = await task.value
                if first() {
                    timer.cancel()
                    continuation.resume(returning: outcome)
                }
            }
        }
    }

    /// Whether `url` failed recently and should not be fetched again before `now`.
    func isBackingOff(_ url: String, now: Int) -> Bool {
        backoff.withLock { $0[url].map { $0.until > now } ?? false }
    }

    /// Records the result of a fetch of `url`: a failure backs off 5 s, doubling up to 5 minutes.
    func record(_ outcome: Outcome, for url: String, now: Int) {
        backoff.withLock { entries in
            guard case .unavailable = outcome else {
                entries[url] = nil
                return
            }
            if entries[url] == nil && entries.count >= capacity {
                entries = entries.filter { $0.value.until > now }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            let failures = (entries[url]?.failures ?? 0) + 1
            entries[url] = Backoff(failures: failures, until: now + min(300, 5 << min(failures - 1, 6)))
        }
    }
}
