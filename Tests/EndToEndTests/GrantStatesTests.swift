import RelaySync
import Testing

@testable import RelayService

extension EndToEndSuite {
    /// Which CloudKit token a call of a grant uses: the bearer validation's snapshot, or what this
    /// process saved (or could not save) since.
    @Suite struct GrantStatesTests {
        let t0: [UInt8] = [0]
        let t1: [UInt8] = [1]
        let t2: [UInt8] = [2]

        @Test func testASavedRotationIsNewerThanAnOlderSnapshotForAMinute() {
            let clock = ManualClock()
            let states = GrantStates(clock: clock)
            states.record("g", .init(sealed: t1, version: 2))
            #expect(states.current("g", snapshot: .init(sealed: t0, version: 1)).sealed == t1)
            #expect(states.current("g", snapshot: .init(sealed: t2, version: 3)).sealed == t2, "the store moved on")
            clock.advance(by: 61)
            #expect(states.current("g", snapshot: .init(sealed: t0, version: 1)).sealed == t0)
        }

        @Test func testAnUnsavedTokenStaysCurrentWhileTheStoreHoldsTheOneItReplaces() {
            let clock = ManualClock()
            let states = GrantStates(clock: clock)
            states.record("g", .init(sealed: t1, version: 2, unsaved: true, replaced: t0))
            // An older snapshot, the same version, or a refresh rotation (new version, same token).
            #expect(states.current("g", snapshot: .init(sealed: t0, version: 1)).sealed == t1)
            #expect(states.current("g", snapshot: .init(sealed: t0, version: 2)).sealed == t1)
            let afterRefresh = states.current("g", snapshot: .init(sealed: t0, version: 3))
            #expect(afterRefresh.sealed == t1)
            #expect(afterRefresh.version == 3, "the next save must compare against the store's version")
            #expect(afterRefresh.base == t0)
            // Another instance saved a newer token: the store wins.
            #expect(states.current("g", snapshot: .init(sealed: t2, version: 3)).sealed == t2)
            // An outage longer than the entries' minute does not lose the only live token.
            clock.advance(by: 600)
            #expect(states.current("g", snapshot: .init(sealed: t0, version: 3)).sealed == t1)
            states.forget("g")
            #expect(states.current("g", snapshot: .init(sealed: t0, version: 3)).sealed == t0)
        }

        /// Stale entries go when the table reaches twice what the last prune kept (at least 10,000),
        /// so with many active grants a call does not scan the table each time, and the table stays
        /// within twice the grants active in the last minute.
        @Test func testStaleEntriesArePrunedAndTheTableStaysWithinTwiceTheActiveGrants() {
            let clock = ManualClock()
            let states = GrantStates(clock: clock)
            for index in 0..<9_999 { states.record("old\(index)", .init(sealed: t1, version: 1)) }
            states.record("unsaved", .init(sealed: t1, version: 2, unsaved: true, replaced: t0))
            clock.advance(by: 61)
            states.record("new0", .init(sealed: t1, version: 1))  // the 10,001st: the stale 9,999 go
            #expect(states.count == 2)
            #expect(states.current("unsaved", snapshot: .init(sealed: t0, version: 2)).sealed == t1)
            // 15,000 grants active within a minute: kept (all live), and the next prune waits for 30,000.
            for index in 1..<15_000 { states.record("new\(index)", .init(sealed: t1, version: 1)) }
            #expect(states.count == 15_001)
            clock.advance(by: 61)
            for index in 0..<15_000 { states.record("next\(index)", .init(sealed: t1, version: 1)) }
            #expect(states.count <= 30_001)
            #expect(states.current("new1", snapshot: .init(sealed: t0, version: 1)).sealed == t0, "stale")
        }
    }
}
