import RelayCloudKit
import RelaySync

/// One tool call's turn of a grant (`GrantSession.inOneTurn`): the token the turn's last CloudKit call rotated
/// to, kept in memory for its next call, and its save. A rotation's save replaces the one before it that has not
/// started (that token is dead once the next call went out, when CloudKit kills old tokens), so a turn saves the
/// token once, when its calls are over (`savesFinished`, the turn's remainder, after the answer) or before a
/// failed call recovers. The turn ends (the grant's next call may start) only once its saves have finished.
final class GrantTurn: Sendable {
    /// The turn the running task is in, if any.
    @TaskLocal static var current: GrantTurn?

    typealias Save = @Sendable () async -> Void
    /// A rotation's save, given the grant state its token replaces (nil: the newest this process knows).
    typealias RotationSave = @Sendable (GrantStates.State?) async -> Void

    let grantID: String
    private struct State {
        var carried: CloudKitWebAuthToken?
        /// The newest rotation's save, not started yet, and the state the turn's first unsaved token replaced.
        var pending: RotationSave?
        var replaced: GrantStates.State?
        /// The saves started so far, one after another.
        var saves: Task<Void, Never>?

        /// Starts the pending rotation's save, if any.
        mutating func startPending() {
            guard let pending else { return }
            let replaced = self.replaced
            self.pending = nil
            self.replaced = nil
            start { await pending(replaced) }
        }

        /// Starts `save` after the saves started before it.
        mutating func start(_ save: @escaping Save) {
            let previous = saves
            saves = Task {
                await previous?.value
                await save()
            }
        }
    }
    private let state = Locked(State())

    init(grantID: String) { self.grantID = grantID }

    /// The token the turn's last call rotated to (nil: none yet, or the last call failed).
    var carried: CloudKitWebAuthToken? { state.withLock { $0.carried } }

    /// Keeps `token` for the turn's next call; `save` replaces the save of the token it rotated from, if that
    /// one has not started, and then replaces what that one would have (`replaced`, or the earlier one's).
    func rotated(
        to token: CloudKitWebAuthToken, replacing replaced: GrantStates.State?, save: @escaping RotationSave
    ) {
        state.withLock { state in
            state.carried = token
            if state.pending == nil { state.replaced = replaced }
            state.pending = save
        }
    }

    /// Forgets the carried token and starts the pending save, then `save` (a timed-out call's late answer: its
    /// token, if any, is known only when it arrives, and it replaces the pending one's).
    func queue(_ save: @escaping Save) {
        state.withLock { state in
            state.carried = nil
            state.startPending()
            state.start(save)
        }
    }

    /// Forgets the carried token: the next call reads the grant's state after the saves.
    func dropCarried() { state.withLock { $0.carried = nil } }

    /// Whether the turn has a save to run or wait for.
    var hasSaves: Bool { state.withLock { $0.pending != nil || $0.saves != nil } }

    /// Starts the pending save, if any, and returns once every save has finished.
    func savesFinished() async {
        let saves = state.withLock { state -> Task<Void, Never>? in
            state.startPending()
            return state.saves
        }
        await saves?.value
    }
}
