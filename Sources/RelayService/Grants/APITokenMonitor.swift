import RelayCloudKit
import RelayStore
import RelaySync

/// Tells a person's ended session from the operator's broken credentials. CloudKit answers 401
/// AUTHENTICATION_FAILED both for a wrong API token or container (how Apple's own samples read it)
/// and, some clients report, for an ended session; only 421 AUTHENTICATION_REQUIRED is
/// unambiguous. So before a 401 may end a grant, `users/caller` without a web auth token must
/// still answer 421 (`CloudKitClient.checkAPIToken()`): then the API token is fine and the 401
/// was about the person's session.
///
/// A flood of 401s (a mistyped token file fails every call of every user) must not become a
/// flood of checks: one check runs at a time and every caller waiting meanwhile shares it, and a
/// refusal (or no answer) is believed for `hold` seconds. Believing "accepted" costs a grant when
/// wrong, so it is believed only from a check that *began after* the 401 it judges arrived.
actor APITokenMonitor {
    /// What `/readyz` and the gauge show, readable without waiting on the actor.
    struct Status: Sendable, Equatable {
        /// The last check's result; nil before the first.
        var result: APITokenCheck?
        /// When it finished.
        var at: Double = 0
    }

    private let check: @Sendable () async -> APITokenCheck
    private let clock: any WallClock
    private let hold: Double
    private let report: @Sendable (_ result: APITokenCheck, _ previous: APITokenCheck?) -> Void
    private var last: (started: Double, finished: Double, result: APITokenCheck)?
    private var inFlight: (started: Double, task: Task<APITokenCheck, Never>)?
    private nonisolated let published = Locked(Status())

    /// A monitor asking `check` (the CloudKit client's), telling `report` every result and the one
    /// before it (logs, metrics).
    init(
        clock: any WallClock, hold: Double = 10,
        report: @escaping @Sendable (APITokenCheck, APITokenCheck?) -> Void = { _, _ in },
        check: @escaping @Sendable () async -> APITokenCheck
    ) {
        self.check = check
        self.clock = clock
        self.hold = hold
        self.report = report
    }

    /// The moment a 401 came back, on the monitor's clock (for `verdict(failureAt:)`).
    nonisolated func now() -> Double { clock.now() }

    /// The last result, for `/readyz` and the gauge.
    nonisolated var status: Status { published.withLock { $0 } }

    /// Whether the API token was fine after a 401 that arrived at `failureAt`: `.accepted` only
    /// from a check that began at or after that moment.
    func verdict(failureAt: Double) async -> APITokenCheck {
        while true {
            let now = clock.now()
            if let last {
                if last.result == .accepted, last.started >= failureAt { return .accepted }
                if last.result != .accepted, now - last.finished < hold { return last.result }
            }
            if let inFlight {
                let result = await inFlight.task.value
                if inFlight.started >= failureAt || result != .accepted { return result }
                // That check began before this 401 arrived and cannot vouch for it: check again.
                continue
            }
            return await start(at: now).value
        }
    }

    /// A check now unless one ran within `hold` seconds (or runs): what `/readyz` asks while the
    /// token is refused or nothing is known yet, so a fixed configuration shows without a 401.
    func refresh() async -> APITokenCheck {
        let now = clock.now()
        if let last, now - last.finished < hold { return last.result }
        if let inFlight { return await inFlight.task.value }
        return await start(at: now).value
    }

    /// Starts the one check; it records its own result before anyone waiting on it resumes.
    private func start(at started: Double) -> Task<APITokenCheck, Never> {
        let check = self.check
        let task = Task { [weak self] in
            let result = await check()
            await self?.finish(started: started, result: result)
            return result
        }
        inFlight = (started, task)
        return task
    }

    private func finish(started: Double, result: APITokenCheck) {
        let previous = last?.result
        let finished = clock.now()
        last = (started, finished, result)
        if inFlight?.started == started { inFlight = nil }
        published.withLock { $0 = Status(result: result, at: finished) }
        report(result, previous)
    }
}

extension CloudKitError.Kind {
    /// What a 401 AUTHENTICATION_FAILED is, given the API token check made after it: the person's
    /// ended session when the token is fine, the operator's fault when CloudKit refuses the token,
    /// an outage when the check got no answer.
    static func afterAuthenticationFailure(_ check: APITokenCheck) -> Self {
        switch check {
        case .accepted: .sessionDead
        case .refused: .authenticationFailed
        case .unknown: .unavailable
        }
    }
}
