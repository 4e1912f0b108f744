import RelayCloudKit
import RelayStore
import RelaySync
import Testing

@testable import RelayService

/// What decides whether a 401 ends a grant: one check at a time however many 401s wait, a
/// refusal believed for a while, and "the API token is fine" believed only from a check that
/// began after the 401 it judges.
struct APITokenMonitorTests {
    /// A check whose answers the test hands out one by one, counting how often it was asked.
    final class ScriptedCheck: Sendable {
        private let state = Locked<(calls: Int, waiting: [CheckedContinuation<APITokenCheck, Never>])>((0, []))

        var calls: Int { state.withLock { $0.calls } }
        var waiting: Int { state.withLock { $0.waiting.count } }

        func run() async -> APITokenCheck {
            await withCheckedContinuation { continuation in
                state.withLock {
                    $0.calls += 1
                    $0.waiting.append(continuation)
                }
            }
        }

        /// Answers the oldest waiting check, once one waits.
        func answer(_ result: APITokenCheck) async {
            while true {
                let continuation = state.withLock { $0.waiting.isEmpty ? nil : $0.waiting.removeFirst() }
                if let continuation {
                    continuation.resume(returning: result)
                    return
                }
                await Task.yield()
            }
        }
    }

    @Test func aFloodOf401sSharesOneCheckAndARefusalIsBelievedForTheHold() async throws {
        let clock = ManualClock()
        let check = ScriptedCheck()
        let reports = Locked<[APITokenCheck]>([])
        let monitor = APITokenMonitor(
            clock: clock, hold: 10, report: { result, _ in reports.withLock { $0.append(result) } },
            check: { await check.run() })
        let failedAt = monitor.now()
        let verdicts = Task {
            await withTaskGroup(of: APITokenCheck.self) { group in
                for _ in 0..<50 { group.addTask { await monitor.verdict(failureAt: failedAt) } }
                return await group.reduce(into: [APITokenCheck]()) { $0.append($1) }
            }
        }
        await check.answer(.refused)
        let results = await verdicts.value
        #expect(results.count == 50 && results.allSatisfy { $0 == .refused })
        #expect(check.calls == 1, "fifty 401s at once: one check")
        #expect(monitor.status.result == .refused)
        #expect(reports.withLock { $0 } == [.refused])

        // Within the hold, later 401s get the same answer without asking CloudKit.
        clock.advance(by: 9)
        #expect(await monitor.verdict(failureAt: monitor.now()) == .refused)
        #expect(check.calls == 1)
        // After it, the next 401 asks again (the operator may have fixed the file).
        clock.advance(by: 2)
        let again = Task { await monitor.verdict(failureAt: monitor.now()) }
        await check.answer(.accepted)
        #expect(await again.value == .accepted)
        #expect(check.calls == 2)
    }

    /// A wrong "the token is fine" costs a person their grant: only a check that started after
    /// the 401 may say it, never an earlier result or a check already under way.
    @Test func acceptedIsBelievedOnlyFromACheckThatBeganAfterThe401() async throws {
        let clock = ManualClock()
        let check = ScriptedCheck()
        let monitor = APITokenMonitor(clock: clock, hold: 10, check: { await check.run() })
        let early = Task { await monitor.refresh() }
        while check.waiting == 0 { await Task.yield() }
        // A 401 arrives while that check is under way.
        clock.advance(by: 1)
        let late = Task { await monitor.verdict(failureAt: monitor.now()) }
        await check.answer(.accepted)
        #expect(await early.value == .accepted)
        // The running check began before the 401: a second one decides it.
        await check.answer(.accepted)
        #expect(await late.value == .accepted)
        #expect(check.calls == 2)
        // A 401 one second later is not vouched for by either.
        clock.advance(by: 1)
        let next = Task { await monitor.verdict(failureAt: monitor.now()) }
        await check.answer(.refused)
        #expect(await next.value == .refused)
        #expect(check.calls == 3)
    }

    @Test func noAnswerIsNeitherAndIsHeldLikeARefusal() async throws {
        let clock = ManualClock()
        let check = ScriptedCheck()
        let monitor = APITokenMonitor(clock: clock, hold: 10, check: { await check.run() })
        let first = Task { await monitor.verdict(failureAt: monitor.now()) }
        await check.answer(.unknown)
        #expect(await first.value == .unknown)
        #expect(await monitor.verdict(failureAt: monitor.now()) == .unknown)
        #expect(check.calls == 1)
        #expect(CloudKitError.Kind.afterAuthenticationFailure(.unknown) == .unavailable)
        #expect(CloudKitError.Kind.afterAuthenticationFailure(.refused) == .authenticationFailed)
        #expect(CloudKitError.Kind.afterAuthenticationFailure(.accepted) == .sessionDead)
    }
}
