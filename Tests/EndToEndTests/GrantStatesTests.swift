import RelayStore
import XCTest

@testable import RelayApp

/// Which CloudKit token a call of a grant uses: the bearer validation's snapshot, or what this
/// process saved (or could not save) since.
final class GrantStatesTests: XCTestCase {
    let t0: [UInt8] = [0]
    let t1: [UInt8] = [1]
    let t2: [UInt8] = [2]

    func testASavedRotationIsNewerThanAnOlderSnapshotForAMinute() {
        let clock = ManualClock()
        let states = GrantStates(clock: clock)
        states.record("g", .init(sealed: t1, version: 2))
        XCTAssertEqual(states.current("g", snapshot: .init(sealed: t0, version: 1)).sealed, t1)
        XCTAssertEqual(states.current("g", snapshot: .init(sealed: t2, version: 3)).sealed, t2, "the store moved on")
        clock.advance(by: 61)
        XCTAssertEqual(states.current("g", snapshot: .init(sealed: t0, version: 1)).sealed, t0)
    }

    func testAnUnsavedTokenStaysCurrentWhileTheStoreHoldsTheOneItReplaces() {
        let clock = ManualClock()
        let states = GrantStates(clock: clock)
        states.record("g", .init(sealed: t1, version: 2, unsaved: true, replaced: t0))
        // An older snapshot, the same version, or a refresh rotation (new version, same token).
        XCTAssertEqual(states.current("g", snapshot: .init(sealed: t0, version: 1)).sealed, t1)
        XCTAssertEqual(states.current("g", snapshot: .init(sealed: t0, version: 2)).sealed, t1)
        let afterRefresh = states.current("g", snapshot: .init(sealed: t0, version: 3))
        XCTAssertEqual(afterRefresh.sealed, t1)
        XCTAssertEqual(afterRefresh.version, 3, "the next save must compare against the store's version")
        XCTAssertEqual(afterRefresh.base, t0)
        // Another instance saved a newer token: the store wins.
        XCTAssertEqual(states.current("g", snapshot: .init(sealed: t2, version: 3)).sealed, t2)
        // An outage longer than the entries' minute does not lose the only live token.
        clock.advance(by: 600)
        XCTAssertEqual(states.current("g", snapshot: .init(sealed: t0, version: 3)).sealed, t1)
        states.forget("g")
        XCTAssertEqual(states.current("g", snapshot: .init(sealed: t0, version: 3)).sealed, t0)
    }
}
