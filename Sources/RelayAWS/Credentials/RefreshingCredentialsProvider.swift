import RelayStore
import RelaySync

/// What happened to a refreshing provider's credentials, for logs and metrics. Carries no key,
/// token or response body.
package enum AWSCredentialEvent: Sendable, Equatable {
    /// New credentials arrived from `source`; they expire in `expiresIn` seconds (nil: no expiry).
    case refreshed(source: AWSCredentialSourceKind, expiresIn: Int?)
    /// Fetching from `source` failed. `validFor`: seconds the current credentials stay usable
    /// (nil: none, so AWS calls fail until a fetch succeeds); `retryIn`: seconds until the next try.
    case refreshFailed(source: AWSCredentialSourceKind, error: AWSError, validFor: Int?, retryIn: Int)
}

/// When a refreshing provider renews its credentials.
package struct AWSCredentialRefreshTiming: Sendable {
    /// Renew this long before the credentials stop being usable (`minimumRemaining` before
    /// expiry), in the background, while the current ones keep signing: 15 minutes, botocore's
    /// advisory refresh window. Capped at half the usable life the credentials had when they
    /// arrived, so short-lived ones are not renewed on every call.
    package var refreshAhead: Duration
    /// Never sign with credentials closer to expiry than this (a request must reach
    /// AWS before they end): callers then wait for the refresh.
    package var minimumRemaining: Duration
    /// The wait before retrying after a failed fetch; doubles with each failure up to `maximumBackoff`.
    package var initialBackoff: Duration
    /// The longest wait between failed fetches.
    package var maximumBackoff: Duration

    /// The defaults: renew 15 minutes ahead, stop using credentials 60 s before expiry, retry after
    /// 1, 2, 4 … 60 s.
    package init(
        refreshAhead: Duration = .seconds(900), minimumRemaining: Duration = .seconds(60),
        initialBackoff: Duration = .seconds(1), maximumBackoff: Duration = .seconds(60)
    ) {
        self.refreshAhead = refreshAhead
        self.minimumRemaining = minimumRemaining
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
    }
}

/// Temporary credentials from one source, renewed before they expire so that no request ever
/// waits on a renewal or signs with an expired key:
///
/// - while more than `refreshAhead` remains, every call returns the cached credentials (one lock,
///   no I/O);
/// - inside the refresh window, the first call starts one fetch in the background and every call,
///   that one included, keeps getting the current credentials meanwhile;
/// - a failed fetch keeps the current credentials while they are usable, reports
///   `.refreshFailed` and is retried after a growing backoff (never on every call);
/// - only with no usable credentials (at start, or after every retry failed until
///   `minimumRemaining`) do calls wait, all of them on the same single fetch.
package final class RefreshingCredentialsProvider: AWSCredentialsProvider, CustomStringConvertible,
    CustomReflectable
{
    private struct Current {
        let credentials: AWSCredentials
        let refreshAt: Double
        let usableUntil: Double
    }

    private struct State {
        var current: Current?
        var inFlight: Task<Result<AWSCredentials, AWSError>, Never>?
        var failures = 0
        var nextAttempt = -Double.infinity
        var lastError: AWSError?
        var fetches = 0
    }

    private enum Decision {
        case use(AWSCredentials)
        case wait(Task<Result<AWSCredentials, AWSError>, Never>)
        case fail(AWSError)
    }

    let source: any AWSCredentialSource
    private let timing: AWSCredentialRefreshTiming
    private let clock: any WallClock
    private let onEvent: @Sendable (AWSCredentialEvent) -> Void
    private let state = Locked(State())

    init(
        source: any AWSCredentialSource, timing: AWSCredentialRefreshTiming = AWSCredentialRefreshTiming(),
        clock: any WallClock = SystemClock(), onEvent: @escaping @Sendable (AWSCredentialEvent) -> Void = { _ in }
    ) {
        self.source = source
        self.timing = timing
        self.clock = clock
        self.onEvent = onEvent
    }

    /// When the current credentials expire (seconds since the epoch), nil before the first fetch.
    package var expiration: Double? { state.withLock { $0.current?.credentials.expiration } }

    /// How many fetches were started (tests and metrics).
    package var fetchCount: Int { state.withLock { $0.fetches } }

    package var description: String { "RefreshingCredentialsProvider(\(source.kind.rawValue))" }

    /// Reflection shows the source only: `dump` must not reach the cached keys.
    package var customMirror: Mirror { Mirror(self, children: ["source": source.kind.rawValue]) }

    package func credentials() async throws(AWSError) -> AWSCredentials {
        let now = clock.now()
        let decision = state.withLock { state -> Decision in
            if let current = state.current, now < current.usableUntil {
                if now >= current.refreshAt, state.inFlight == nil, now >= state.nextAttempt {
                    state.inFlight = startFetch(&state)
                }
                return .use(current.credentials)
            }
            if let inFlight = state.inFlight { return .wait(inFlight) }
            if now < state.nextAttempt, let error = state.lastError { return .fail(error) }
            let task = startFetch(&state)
            state.inFlight = task
            return .wait(task)
        }
        switch decision {
        case .use(let credentials):
            return credentials
        case .fail(let error):
            throw error
        case .wait(let task):
            return try await task.value.get()
        }
    }

    /// Starts the one fetch; called with the state locked, so no second one can start meanwhile.
    /// Detached: a caller that gives up (cancelled) must not cancel the fetch others wait on.
    private func startFetch(_ state: inout State) -> Task<Result<AWSCredentials, AWSError>, Never> {
        state.fetches += 1
        return Task.detached { [self] in await fetch() }
    }

    private func fetch() async -> Result<AWSCredentials, AWSError> {
        var result: Result<AWSCredentials, AWSError>
        do {
            result = .success(try await source.fetch())
        } catch {
            result = .failure(error)
        }
        let now = clock.now()
        if case .success(let fresh) = result, let expiration = fresh.expiration,
            expiration - timing.minimumRemaining.seconds <= now
        {
            result = .failure(
                .credentials(
                    "\(source.kind.rawValue) returned credentials that expire in \(Int(expiration - now)) s"))
        }
        let event = state.withLock { state -> AWSCredentialEvent in
            state.inFlight = nil
            switch result {
            case .success(let fresh):
                state.current = current(fresh, now: now)
                state.failures = 0
                state.nextAttempt = -.infinity
                state.lastError = nil
                return .refreshed(source: source.kind, expiresIn: fresh.expiration.map { Int($0 - now) })
            case .failure(let error):
                state.failures += 1
                let delay = backoff(afterFailures: state.failures)
                state.nextAttempt = now + delay
                state.lastError = error
                let validFor = state.current.map { $0.usableUntil - now }.flatMap { $0 > 0 ? Int($0) : nil }
                return .refreshFailed(
                    source: source.kind, error: error, validFor: validFor, retryIn: Int(delay.rounded(.up)))
            }
        }
        onEvent(event)
        return result
    }

    /// The window is measured back from the end of the usable life (a minute before expiry), so
    /// a background refresh always has time to finish before anyone would have to wait.
    private func current(_ credentials: AWSCredentials, now: Double) -> Current {
        guard let expiration = credentials.expiration else {
            return Current(credentials: credentials, refreshAt: .infinity, usableUntil: .infinity)
        }
        let usableUntil = expiration - timing.minimumRemaining.seconds
        let ahead = min(timing.refreshAhead.seconds, (usableUntil - now) / 2)
        return Current(credentials: credentials, refreshAt: usableUntil - ahead, usableUntil: usableUntil)
    }

    /// `initialBackoff` × 2^(failures − 1), at most `maximumBackoff`, less up to a quarter at
    /// random so that many instances that failed together do not retry together.
    private func backoff(afterFailures failures: Int) -> Double {
        let ceiling = min(
            timing.maximumBackoff.seconds, timing.initialBackoff.seconds * Double(1 << min(failures - 1, 30)))
        return ceiling * Double.random(in: 0.75...1)
    }
}
