import RelayCloudKit
import RelayOAuth
import RelayVault

/// A grant whose newest CloudKit token is dead waits for its person to sign in to iCloud again (issue 39):
/// the answer that carries the link, and the installing of the token that sign-in parked on the grant.
extension GrantSession {
    /// The answer for a call of a grant known to wait for its person to sign in to iCloud again, when the store
    /// says it still waits: given before the call queues for the grant's turn, so a client's burst of retries
    /// is answered (with the link) rather than refused as too many calls waiting. nil: the call goes on into
    /// the turn (not known to wait, a sign-in's token to install, an unsaved newer token, a store that failed).
    func answerWhileWaiting() async -> CloudKitError? {
        guard grant.awaitsSignIn || states.waitsForSignIn(grant.grantID), !latestState().unsaved,
            let stored = try? await oauth.sealedToken(grantID: grant.grantID), stored.waitingSince != nil,
            stored.parked == nil
        else { return nil }
        states.noteWaiting(grant.grantID, true)
        return await signInRequired(stored)
    }

    /// The state a call of this grant starts with. A grant known to wait for its person to sign in to iCloud
    /// again (its validation said so, or this process saw it) is answered from the store: its CloudKit token
    /// is dead until that sign-in, so no CloudKit call goes out with it; a sign-in's parked token is installed
    /// first. An unsaved token this process holds is newer than the store's and is tried as it is.
    func startingState() async throws(CloudKitError) -> GrantStates.State {
        let latest = latestState()
        guard !latest.unsaved, grant.awaitsSignIn || states.waitsForSignIn(grant.grantID) else { return latest }
        let stored: StoredSealedToken?
        do throws(OAuthError) {
            stored = try await oauth.sealedToken(grantID: grant.grantID)
        } catch {
            throw CloudKitError(.unavailable, reason: "the store did not answer")
        }
        guard let stored else {
            states.noteWaiting(grant.grantID, false)
            return latest
        }
        if stored.parked != nil {
            if let installed = await installParked(stored) { return installed }
            throw CloudKitError(.unavailable, reason: "the new sign-in could not be installed yet")
        }
        guard stored.waitingSince == nil else {
            states.noteWaiting(grant.grantID, true)
            throw await signInRequired(stored)
        }
        states.noteWaiting(grant.grantID, false)
        return states.current(
            grant.grantID, snapshot: GrantStates.State(sealed: stored.sealed, version: stored.version))
    }

    /// The answer for a grant that waits for its person to sign in to iCloud again, with the grant's link in
    /// `redirectURL` (never logged), or none when the store or the key service did not answer. `stored` is the
    /// grant as just read, if it was.
    func signInRequired(_ stored: StoredSealedToken?) async -> CloudKitError {
        var error = CloudKitError(.signInRequired)
        error.redirectURL = await signInLink(stored)
        return error
    }

    /// The grant's one live link, shown again on every call until it is spent or nearly ended; then a new one
    /// (`Reconnections+ShownLink`). Two calls making one at once: one wins the grant's version, the other
    /// reads again and shows the winner's. The link's handle is kept sealed under the grant's data key, which
    /// only a token of the grant opens.
    private func signInLink(_ first: StoredSealedToken?) async -> String? {
        var known = first
        for _ in 0..<Self.linkAttempts {
            let stored: StoredSealedToken
            if let known {
                stored = known
            } else {
                guard let read = try? await oauth.sealedToken(grantID: grant.grantID) else { return nil }
                stored = read
            }
            known = nil
            guard stored.waitingSince != nil else { return nil }
            if let link = stored.signInLink, let url = await shown(link) { return url }
            let handle = oauth.newSignInLinkHandle()
            let sealed: [UInt8]
            do throws(VaultError) {
                sealed = try await vault.reseal(
                    Array((Self.linkPrefix + handle).utf8), tokenBoundKey: TokenBoundKey(bytes: grant.boundSecret),
                    token: token, context: context
                ).bytes
            } catch {
                observer.event(.error, "vault.reseal_failed", grant: grant, reason: "\(error)")
                return nil
            }
            do throws(OAuthError) {
                if let url = try await oauth.replaceSignInLink(
                    grantID: grant.grantID, expectedVersion: stored.version, handle: handle, sealedHandle: sealed,
                    previous: stored.signInLink)
                {
                    return url
                }
            } catch {
                return nil
            }
        }
        return nil
    }

    /// The URL of the grant's stored link, when it may be shown again and opens with this call's token.
    private func shown(_ link: ShownSignInLink) async -> String? {
        guard (try? await oauth.isShowable(link, grantID: grant.grantID)) == true else { return nil }
        guard
            let opened = try? await vault.unseal(
                RelayVault.SealedGrant(bytes: link.sealed), tokenBoundKey: TokenBoundKey(bytes: grant.boundSecret),
                token: token, context: context)
        else { return nil }
        let text = String(decoding: opened, as: UTF8.self)
        // Sealed under the same key as the CloudKit token: the prefix keeps one from passing for the other.
        guard text.hasPrefix(Self.linkPrefix) else { return nil }
        return oauth.signInLinkURL(handle: String(text.dropFirst(Self.linkPrefix.count)))
    }

    /// What a sealed link handle starts with.
    static let linkPrefix = "mustdo-relay/reconnect-link/v1:"

    /// How many times a call reads the grant again after another call changed it while making a link.
    static let linkAttempts = 3

    /// Re-seals the token a completed sign-in parked on the grant under the grant's own data key (which only
    /// the presented token opens) and installs it; nil when it cannot be opened or installed now.
    func installParked(_ stored: StoredSealedToken) async -> GrantStates.State? {
        guard let parked = stored.parked, let key = stored.parkedKey else { return nil }
        // The parking binding is per grant, each sign-in a new data key: never a cached one.
        vault.evictCachedKey(token: stored.parkingToken)
        defer { vault.evictCachedKey(token: stored.parkingToken) }
        let opened: [UInt8]
        let resealed: [UInt8]
        do throws(VaultError) {
            opened = try await vault.unseal(
                RelayVault.SealedGrant(bytes: parked), tokenBoundKey: TokenBoundKey(bytes: key),
                token: stored.parkingToken, context: context)
            resealed = try await vault.reseal(
                opened, tokenBoundKey: TokenBoundKey(bytes: grant.boundSecret), token: token, context: context
            ).bytes
        } catch {
            observer.event(.error, "vault.reseal_failed", grant: grant, reason: "\(error)")
            return nil
        }
        do throws(OAuthError) {
            guard
                let version = try await oauth.installParked(
                    grantID: grant.grantID, expectedVersion: stored.version, resealed: resealed)
            else { return nil }
            let state = GrantStates.State(sealed: resealed, version: version)
            states.record(grant.grantID, state)
            states.noteWaiting(grant.grantID, false)
            observer.event(.info, "cloudkit.sign_in_restored", grant: grant)
            return state
        } catch {
            return nil
        }
    }
}
