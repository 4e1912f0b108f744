import RelayOAuth

/// Writes a rotated, sealed CloudKit token over the one it replaces (compare-and-swap on the
/// grant's version), for a grant's call (`GrantSession`) and for the tokens a store outage left in
/// memory (`UnsavedRotations`). A store failure keeps the token in `GrantStates`, marked unsaved.
struct RotationWriter: Sendable {
    let oauth: AuthorizationServer
    let states: GrantStates
    let observer: UpstreamObserver

    /// What became of the write.
    enum Outcome: Equatable {
        case saved
        /// Another token is stored (another instance rotated it) or the grant is gone.
        case superseded
        /// The store failed: the token stays in memory, unsaved.
        case kept
    }

    @discardableResult
    func write(_ sealed: [UInt8], replacing current: GrantStates.State, grant: BearerGrant) async -> Outcome {
        var expected = current.version
        do throws(OAuthError) {
            for _ in 0..<4 {
                if let version = try await oauth.replaceSealed(
                    grantID: grant.grantID, expectedVersion: expected, sealed: sealed)
                {
                    states.record(grant.grantID, GrantStates.State(sealed: sealed, version: version))
                    return .saved
                }
                // The grant changed meanwhile. A refresh rotation (or another instance's `markEnding`)
                // changes its version, not its CloudKit token: the rotated token still belongs there
                // (when old tokens die at once, it is the only live one), and so it does over an older
                // token of this process's own chain whose write landed unseen. Another token, or no
                // grant, means another instance rotated it or the grant ended.
                guard let stored = try await oauth.sealedToken(grantID: grant.grantID) else { break }
                // An earlier try whose answer was lost (a store that hung or reset) may have landed.
                if stored.sealed == sealed {
                    states.record(grant.grantID, GrantStates.State(sealed: sealed, version: stored.version))
                    return .saved
                }
                guard current.bases.contains(stored.sealed) else { break }
                expected = stored.version
            }
            // Another token is stored. When old tokens die at once, ours may still be the live one (the
            // other a stale copy some instance wrote): keep it aside, to be tried once before the
            // grant may end (`GrantSession.afterRefusal`), rather than lose it.
            states.orphan(grant.grantID, sealed)
            observer.event(.warning, "cloudkit.rotation_conflict", grant: grant)
            return .superseded
        } catch {
            keepUnsaved(sealed, version: expected, replacing: current, grant: grant, error: error)
            return .kept
        }
    }

    /// Keeps a token the store would not take, to be saved again (`UnsavedRotations`).
    private func keepUnsaved(
        _ sealed: [UInt8], version: Int, replacing current: GrantStates.State, grant: BearerGrant, error: OAuthError
    ) {
        states.record(
            grant.grantID,
            GrantStates.State(
                sealed: sealed, version: version, unsaved: true, replaced: current.base,
                attempted: current.unsaved ? Array((current.attempted + [current.sealed]).suffix(8)) : [], owner: grant)
        )
        // Once per token: `UnsavedRotations` tries again every half second while the store is away.
        if !(current.unsaved && current.sealed == sealed) {
            observer.event(.error, "store.rotation_unsaved", grant: grant, reason: "\(error)")
        }
    }
}
