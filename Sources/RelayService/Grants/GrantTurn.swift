import RelayCloudKit
import RelaySync

/// One tool call's turn of a grant (`GrantSession.inOneTurn`): the token the turn's last CloudKit call rotated
/// to, kept in memory for its next call, and the saves of every rotation, run one after another in rotation
/// order beside the calls. The turn ends (the grant's next call may start) only once they have all finished.
final class GrantTurn: Sendable {
    /// The turn the running task is in, if any.
    @TaskLocal static var current: GrantTurn?

    let grantID: String
    private struct State {
        var carried: CloudKitWebAuthToken?
        var saves: Task<Void, Never>?
    }
    private let state = Locked(State())

    init(grantID: String) { self.grantID = grantID }

    /// The token the turn's last call rotated to (nil: none yet, or the last call failed).
    var carried: CloudKitWebAuthToken? { state.withLock { $0.carried } }

    /// Keeps `token` for the turn's next call and runs `save` after the saves queued before it.
    func rotated(to token: CloudKitWebAuthToken, save: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            state.carried = token
            let previous = state.saves
            state.saves = Task {
                await previous?.value
                await save()
            }
        }
    }

    /// Forgets the carried token and runs `save` after the saves queued before it (a timed-out call's
    /// late answer: its token, if any, is known only when it arrives).
    func queue(_ save: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            state.carried = nil
            let previous = state.saves
            state.saves = Task {
                await previous?.value
                await save()
            }
        }
    }

    /// Forgets the carried token: the next call reads the grant's state after the queued saves.
    func dropCarried() { state.withLock { $0.carried = nil } }

    /// Whether a save was queued.
    var hasSaves: Bool { state.withLock { $0.saves != nil } }

    /// Returns once every queued save has finished.
    func savesFinished() async { await state.withLock { $0.saves }?.value }
}
