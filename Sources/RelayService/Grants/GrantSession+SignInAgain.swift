import RelayCloudKit
import RelayOAuth
import RelayVault

/// A grant whose newest CloudKit token is dead waits for its person to sign in to iCloud again (issue 39):
/// the answer that carries the link, and the installing of the token that sign-in parked on the grant.
extension GrantSession {
    /// The answer for a grant that waits for its person to sign in to iCloud again: a new
    /// single-use link in `redirectURL` (never logged), or none when the store did not answer.
    func signInRequired() async -> CloudKitError {
        var error = CloudKitError(.signInRequired)
        error.redirectURL = try? await oauth.signInAgainLink(grantID: grant.grantID)
        return error
    }

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
            observer.event(.info, "cloudkit.sign_in_restored", grant: grant)
            return state
        } catch {
            return nil
        }
    }
}
