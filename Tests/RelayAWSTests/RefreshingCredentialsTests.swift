import Foundation
import RelayStore
import RelaySync
import RelayTestSupport
import Testing

@testable import RelayAWS

/// The refresh rules of `RefreshingCredentialsProvider`, on a manual clock with a source in
/// memory: one fetch at a time, the current credentials served while a refresh runs or fails,
/// nobody ever handed credentials inside their last minute.
struct RefreshingCredentialsTests {
    /// A source that counts fetches, can be held (gate) and made to fail.
    final class Source: AWSCredentialSource {
        let clock: ManualClock
        let lifetime: Double
        private let state = Locked<(fetches: Int, gateOpen: Bool, failure: AWSError?)>((0, true, nil))
        var kind: AWSCredentialSourceKind { .instanceMetadata }
        var fetches: Int { state.withLock { $0.fetches } }

        init(clock: ManualClock, lifetime: Double = 3600) {
            self.clock = clock
            self.lifetime = lifetime
        }

        func hold() { state.withLock { $0.gateOpen = false } }
        func release() { state.withLock { $0.gateOpen = true } }
        func fail(_ error: AWSError?) { state.withLock { $0.failure = error } }

        func fetch() async throws(AWSError) -> AWSCredentials {
            let number = state.withLock { state -> Int in
                state.fetches += 1
                return state.fetches
            }
            while !state.withLock({ $0.gateOpen }) { try? await Task.sleep(for: .milliseconds(2)) }
            if let failure = state.withLock({ $0.failure }) { throw failure }
            return try AWSCredentials(
                accessKeyID: "ASIAKEY\(number)", secretAccessKey: "secret-\(number)", sessionToken: "token-\(number)",
                expiration: clock.now() + lifetime)
        }
    }

    final class Events: Sendable {
        let all = Locked<[AWSCredentialEvent]>([])
        func record(_ event: AWSCredentialEvent) { all.withLock { $0.append(event) } }
        var failures: [AWSCredentialEvent] {
            all.withLock { $0.filter { if case .refreshFailed = $0 { true } else { false } } }
        }
    }

    let clock = ManualClock()
    let events = Events()

    func provider(_ source: Source) -> RefreshingCredentialsProvider {
        let events = events
        return RefreshingCredentialsProvider(source: source, clock: clock) { events.record($0) }
    }

    /// `count` concurrent calls; the access key each got (or "error").
    func keys(_ provider: RefreshingCredentialsProvider, count: Int) async -> [String] {
        await withTaskGroup(of: String.self) { group in
            for _ in 0..<count {
                group.addTask { (try? await provider.credentials().accessKeyID) ?? "error" }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func theFirstCallsAllWaitOnOneFetch() async throws {
        let source = Source(clock: clock)
        source.hold()
        let provider = provider(source)
        let calls = Task { await keys(provider, count: 200) }
        try await waitUntil { source.fetches == 1 }
        try await Task.sleep(for: .milliseconds(50))
        source.release()
        let results = await calls.value
        #expect(Set(results) == ["ASIAKEY1"])
        #expect(source.fetches == 1)
        #expect(events.all.withLock { $0 } == [.refreshed(source: .instanceMetadata, expiresIn: 3600)])
    }

    @Test func insideTheRefreshWindowCallsKeepTheCurrentKeyWhileOneFetchRuns() async throws {
        let source = Source(clock: clock)
        let provider = provider(source)
        #expect(try await provider.credentials().accessKeyID == "ASIAKEY1")
        clock.advance(by: 3600 - 961)
        _ = try await provider.credentials()
        #expect(provider.fetchCount == 1, "16 min 1 s left: not yet")
        clock.advance(by: 2)  // 15 min 59 s left: inside the window (15 min before the last minute)
        source.hold()
        // Every call answers at once with the current key although the fetch is held.
        #expect(Set(await keys(provider, count: 300)) == ["ASIAKEY1"])
        #expect(provider.fetchCount == 2, "exactly one refresh for 300 calls")
        try await waitUntil { source.fetches == 2 }
        source.release()
        try await waitUntil { (try? await provider.credentials().accessKeyID) == "ASIAKEY2" }
        #expect(source.fetches == 2)
        #expect(provider.expiration == clock.now() + 3600)
    }

    @Test func aFailedRefreshKeepsTheCurrentKeyWarnsAndBacksOff() async throws {
        let source = Source(clock: clock)
        let provider = provider(source)
        _ = try await provider.credentials()
        clock.advance(by: 3600 - 600)  // 10 minutes left
        source.fail(.credentials("the instance metadata service did not answer in time"))
        #expect(try await provider.credentials().accessKeyID == "ASIAKEY1")
        try await waitUntil { events.failures.count == 1 }
        guard case .refreshFailed(_, let error, let validFor, let retryIn) = events.failures.first else {
            Issue.record("no failure event")
            return
        }
        #expect(error == .credentials("the instance metadata service did not answer in time"))
        #expect(validFor == 540, "usable until a minute before expiry")
        #expect((1...1).contains(retryIn))
        // Within the backoff, calls neither fail nor fetch again.
        #expect(Set(await keys(provider, count: 100)) == ["ASIAKEY1"])
        #expect(provider.fetchCount == 2)
        // After it, one more try; failures double the wait (1, 2, 4 s … with jitter).
        clock.advance(by: 1)
        _ = try await provider.credentials()
        try await waitUntil { events.failures.count == 2 }
        #expect(source.fetches == 3)
        clock.advance(by: 1)
        _ = try await provider.credentials()
        try await Task.sleep(for: .milliseconds(50))
        #expect(provider.fetchCount == 3, "the second backoff is at least 1.5 s")
        source.fail(nil)
        clock.advance(by: 1)
        _ = try await provider.credentials()
        try await waitUntil { (try? await provider.credentials().accessKeyID) == "ASIAKEY4" }
    }

    @Test func withNothingUsableCallsFailUntilTheSourceRecovers() async throws {
        let source = Source(clock: clock)
        let provider = provider(source)
        _ = try await provider.credentials()
        clock.advance(by: 3600 - 59)  // 59 s left: below the one-minute floor
        source.fail(.credentials("cannot connect to the instance metadata service"))
        let results = await keys(provider, count: 50)
        #expect(Set(results) == ["error"], "nobody gets credentials in their last minute")
        #expect(source.fetches == 2, "one fetch for all waiting callers")
        // During the backoff calls fail at once, without fetching.
        await #expect(throws: AWSError.credentials("cannot connect to the instance metadata service")) {
            try await provider.credentials()
        }
        #expect(provider.fetchCount == 2)
        guard case .refreshFailed(_, _, nil, _) = events.failures.last else {
            Issue.record("the failure must say nothing usable is left")
            return
        }
        source.fail(nil)
        clock.advance(by: 1)
        #expect(try await provider.credentials().accessKeyID == "ASIAKEY3")
    }

    @Test func credentialsThatArriveNearlyExpiredAreRefused() async throws {
        let source = Source(clock: clock, lifetime: 30)
        let provider = provider(source)
        await #expect(throws: AWSError.self) { try await provider.credentials() }
        #expect(events.failures.count == 1)
    }

    @Test func shortLivedCredentialsAreRenewedHalfWayThroughTheirUsableLife() async throws {
        let source = Source(clock: clock, lifetime: 900)  // the shortest STS session: usable for 840 s
        let provider = provider(source)
        _ = try await provider.credentials()
        clock.advance(by: 419)
        _ = try await provider.credentials()
        #expect(source.fetches == 1)
        clock.advance(by: 2)
        #expect(try await provider.credentials().accessKeyID == "ASIAKEY1")
        try await waitUntil { source.fetches == 2 }
    }

    @Test func aCancelledCallerDoesNotCancelTheFetchOthersWaitOn() async throws {
        let source = Source(clock: clock)
        source.hold()
        let provider = provider(source)
        let cancelled = Task { try await provider.credentials() }
        try await waitUntil { source.fetches == 1 }
        let waiting = Task { try await provider.credentials() }
        cancelled.cancel()
        source.release()
        #expect(try await waiting.value.accessKeyID == "ASIAKEY1")
        #expect(source.fetches == 1)
    }
}
