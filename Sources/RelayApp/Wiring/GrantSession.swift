import RelayCloudKit
import RelayOAuth
import RelayTodo
import RelayVault

/// The CloudKit session of one authenticated grant: every call runs in the grant's turn
/// (`GrantSerializer`), opens the sealed CloudKit token with the presented OAuth token, and saves
/// the token CloudKit rotates to (re-sealed under the same data key, compare-and-swap on the
/// grant's version) before the grant's next call starts.
struct GrantSession: CloudKitSession {
    let grant: BearerGrant
    /// The presented access token: the vault derives the token-binding key from it.
    let token: String
    let oauth: AuthorizationServer
    let vault: Vault
    let serializer: GrantSerializer
    let states: GrantStates
    let observer: UpstreamObserver

    private var context: SealContext {
        SealContext(purpose: cloudKitTokenPurpose, userId: grant.userID, grantId: grant.grantID)
    }

    func perform<Value: Sendable>(
        _ call: (CloudKitWebAuthToken) async throws(CloudKitError) -> CloudKitResponse<Value>
    ) async throws(CloudKitError) -> Value {
        try await serializer.run(grant: grant.grantID) { () async throws(CloudKitError) -> Value in
            var current = states.current(
                grant.grantID, snapshot: GrantStates.State(sealed: grant.sealed, version: grant.grantVersion))
            var retried = false
            while true {
                let webAuthToken = try await unseal(current.sealed)
                let started = ContinuousClock.now
                do throws(CloudKitError) {
                    let response = try await call(CloudKitWebAuthToken(webAuthToken))
                    observer.upstream(started: started, outcome: "ok")
                    await save(response.rotatedToken, replacing: current)
                    return response.value
                } catch {
                    observer.upstream(started: started, outcome: error.kind.rawValue)
                    // Another instance may have rotated the token since this request read the grant:
                    // try once more with the store's newest copy before calling the session dead.
                    if error.kind == .sessionDead, !retried, let latest = await storedState(),
                        latest.version != current.version
                    {
                        retried = true
                        current = latest
                        continue
                    }
                    await save(error.rotatedToken, replacing: current)
                    throw error
                }
            }
        }
    }

    private func unseal(_ sealed: [UInt8]) async throws(CloudKitError) -> String {
        do {
            let bytes = try await vault.unseal(
                RelayVault.SealedGrant(bytes: sealed), tokenBoundKey: TokenBoundKey(bytes: grant.boundSecret),
                token: token,
                context: context)
            return String(decoding: bytes, as: UTF8.self)
        } catch .keyServiceUnavailable, .keyServiceThrottled {
            throw CloudKitError(.unavailable, reason: "the key service did not answer")
        } catch {
            // A grant whose seal no longer opens cannot be used again: end it so the client reconnects.
            observer.event(.error, "vault.unseal_failed", grant: grant)
            throw CloudKitError(.sessionDead)
        }
    }

    private func storedState() async -> GrantStates.State? {
        guard let stored = try? await oauth.sealedToken(grantID: grant.grantID) else { return nil }
        return GrantStates.State(sealed: stored.sealed, version: stored.version)
    }

    /// Re-seals and stores a rotated token. A store failure must not fail a call that CloudKit
    /// already carried out: the token is then kept in memory for this process's next call.
    private func save(_ rotated: CloudKitWebAuthToken?, replacing current: GrantStates.State) async {
        guard let rotated else { return }
        let sealed: RelayVault.SealedGrant
        do {
            sealed = try await vault.reseal(
                Array(rotated.rawValue.utf8), tokenBoundKey: TokenBoundKey(bytes: grant.boundSecret), token: token,
                context: context)
        } catch {
            observer.event(.error, "vault.reseal_failed", grant: grant)
            return
        }
        do {
            var expected = current.version
            // The grant's version also moves when its refresh token rotates. As long as the store still
            // holds the CloudKit token this call used, nobody saved a newer one: save ours on the newer
            // version, or the next call would present the token CloudKit just retired.
            for _ in 0..<3 {
                if let version = try await oauth.replaceSealed(
                    grantID: grant.grantID, expectedVersion: expected, sealed: sealed.bytes)
                {
                    states.record(grant.grantID, GrantStates.State(sealed: sealed.bytes, version: version))
                    return
                }
                guard let stored = try await oauth.sealedToken(grantID: grant.grantID), stored.sealed == current.sealed
                else { break }
                expected = stored.version
            }
            // Another call or instance saved a newer token meanwhile, or the grant was revoked.
            observer.event(.warning, "cloudkit.rotation_conflict", grant: grant)
        } catch {
            states.record(
                grant.grantID, GrantStates.State(sealed: sealed.bytes, version: current.version, unsaved: true))
            observer.event(.error, "store.rotation_unsaved", grant: grant)
        }
    }
}
