import RelayCloudKit
import RelayOAuth
import RelaySync
import RelayTodo
import RelayVault

/// The CloudKit session of one authenticated grant: every call runs in the grant's turn
/// (`GrantSerializer`), opens the sealed CloudKit token with the presented OAuth token, and saves
/// the token CloudKit rotates to (re-sealed under the same data key, compare-and-swap on the
/// grant's version) before the grant's next call starts. A successful call's answer does not wait
/// for that save: the save is the remainder of the grant's turn (`GrantSerializer.runWithRemainder`), and
/// graceful shutdown waits for it (`Application.waitUntilStopped`). The calls of one tool call run in one turn
/// (`inOneTurn`, `GrantTurn`): each starts with the token the previous one rotated to, from memory, and
/// the turn saves its newest token once, after the answer.
final class GrantSession: CloudKitSession {
    let grant: BearerGrant
    /// The presented access token: the vault derives the token-binding key from it.
    let token: String
    let oauth: AuthorizationServer
    let vault: Vault
    let serializer: GrantSerializer
    let states: GrantStates
    let observer: UpstreamObserver
    /// Decides what a 401 AUTHENTICATION_FAILED means (the person's session, or the API token).
    let credentials: APITokenMonitor
    /// How long CloudKit must keep refusing the grant's stored token, after the first refusal was
    /// stamped on the grant, before the grant ends (`SessionEndGrace`).
    let endGrace: SessionEndGrace

    init(
        grant: BearerGrant, token: String, oauth: AuthorizationServer, vault: Vault, serializer: GrantSerializer,
        states: GrantStates, observer: UpstreamObserver, credentials: APITokenMonitor, endGrace: SessionEndGrace
    ) {
        self.grant = grant
        self.token = token
        self.oauth = oauth
        self.vault = vault
        self.serializer = serializer
        self.states = states
        self.observer = observer
        self.credentials = credentials
        self.endGrace = endGrace
    }

    private var writer: RotationWriter { RotationWriter(oauth: oauth, states: states, observer: observer) }

    /// What the vault binds this grant's sealed CloudKit tokens to (the parked one's re-seal uses it too).
    var context: SealContext {
        SealContext(purpose: cloudKitTokenPurpose, userId: grant.userID, grantId: grant.grantID)
    }

    func perform<Value: Sendable>(
        _ call: (CloudKitWebAuthToken) async throws(CloudKitError) -> CloudKitResponse<Value>
    ) async throws(CloudKitError) -> Value {
        if let turn = GrantTurn.current, turn.grantID == grant.grantID {
            // In this grant's turn already (`inOneTurn`): the turn's next call starts with the rotated token
            // from memory; the turn saves its newest token once, after its calls (`GrantTurn`).
            do throws(CloudKitError) {
                let (value, rotated, replaced) = try await calling(call, turn: turn)
                if let rotated {
                    turn.rotated(to: rotated, replacing: replaced) { replaced in
                        await self.save(rotated, replacing: replaced ?? self.latestState())
                    }
                }
                return value
            } catch {
                // A late answer's token is saved in the turn, after the saves queued before it.
                if let late = error.lateAnswer { turn.queue { await self.saveLate(late) } }
                throw error
            }
        }
        if let waiting = await answerWhileWaiting() { throw waiting }
        return try await serializer.runWithRemainder(grant: grant.grantID) {
            () async throws(CloudKitError) -> (Result<Value, CloudKitError>, GrantSerializer.Remainder?) in
            do throws(CloudKitError) {
                let (value, rotated, replaced) = try await calling(call, turn: nil)
                // The answer goes out now; the save runs after it, still in the grant's turn, so
                // the grant's next call starts with the rotated token saved (or kept in memory).
                guard let rotated else { return (.success(value), nil) }
                return (.success(value), { await self.save(rotated, replacing: replaced ?? self.latestState()) })
            } catch {
                // Past RELAY_CLOUDKIT_TIMEOUT: the call fails now, but CloudKit may still carry it out
                // and name the only live token. Its answer is awaited, and its token saved, in the
                // grant's turn: no call of this grant here goes out meanwhile with the token that
                // answer may replace.
                guard let late = error.lateAnswer else { throw error }
                return (.failure(error), { await self.saveLate(late) })
            }
        }.get()
    }

    /// Waits (at most `CloudKitConfiguration.lateAnswerWait`) for the answer to a call that timed out
    /// and saves the token it names, over the token this process holds for the grant now.
    private func saveLate(_ late: LateAnswer) async {
        guard let rotated = await late.rotatedToken() else {
            // An answer without a token (a refusal) leaves nothing to save; no answer at all may
            // mean CloudKit carried the call out later still, and the token it named is lost.
            if await !late.arrived() { observer.event(.warning, "cloudkit.late_answer_missing", grant: grant) }
            return
        }
        observer.event(.info, "cloudkit.late_answer_saved", grant: grant)
        await save(rotated, replacing: latestState())
    }

    /// Runs a tool call's CloudKit calls in one turn of the grant (`GrantTurn`): each call after the first starts
    /// with the token the previous one rotated to, in memory (no unseal, no save in between); the newest token is
    /// saved once, after the calls (before a failed call recovers, the tokens so far), and the turn (so the
    /// grant's next call) ends only once it is saved. The answer does not wait for the save, as with a single call.
    func inOneTurn<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        if let turn = GrantTurn.current, turn.grantID == grant.grantID { return try await body() }
        if let waiting = await answerWhileWaiting() { throw waiting }
        let turn = GrantTurn(grantID: grant.grantID)
        return try await run(body, in: turn).get()
    }

    private func run<Value>(
        _ body: @Sendable () async throws -> Value, in turn: GrantTurn
    ) async throws(CloudKitError) -> Result<Value, any Error> {
        func turnBody() async throws(CloudKitError) -> (Result<Value, any Error>, GrantSerializer.Remainder?) {
            let outcome = await Self.outcome(of: body, in: turn)
            guard turn.hasSaves else { return (outcome, nil) }
            return (outcome, { await turn.savesFinished() })
        }
        return try await serializer.runWithRemainder(grant: grant.grantID, turnBody)
    }

    private static func outcome<Value>(
        of body: @Sendable () async throws -> Value, in turn: GrantTurn
    ) async -> Result<Value, any Error> {
        do {
            return .success(try await GrantTurn.$current.withValue(turn, operation: body))
        } catch {
            return .failure(error)
        }
    }

    /// The grant's newest state this process knows (the store's, or what it last wrote).
    func latestState() -> GrantStates.State {
        states.current(grant.grantID, snapshot: GrantStates.State(sealed: grant.sealed, version: grant.grantVersion))
    }

    /// One CloudKit call: its value, the token it rotated to, and the state that token replaces (nil: the one the
    /// turn's queued saves leave). In a turn with a carried token, that token is used as is; when it fails, the
    /// queued saves finish and the call goes on as a first call would (following newer stored tokens).
    private func calling<Value: Sendable>(
        _ call: (CloudKitWebAuthToken) async throws(CloudKitError) -> CloudKitResponse<Value>, turn: GrantTurn?
    ) async throws(CloudKitError) -> (Value, CloudKitWebAuthToken?, GrantStates.State?) {
        var current: GrantStates.State
        var followed = 0
        if let turn, let carried = turn.carried {
            let started = ContinuousClock.now
            do throws(CloudKitError) {
                let response = try await call(carried)
                observer.upstream(started: started, outcome: "ok")
                return (response.value, response.rotatedToken, nil)
            } catch {
                turn.dropCarried()
                await turn.savesFinished()
                if error.lateAnswer != nil {
                    observer.upstream(started: started, outcome: error.kind.rawValue)
                    await save(error.rotatedToken, replacing: latestState())
                    throw error
                }
                current = try await recover(from: error, started: started, current: latestState(), followed: 0)
                followed = 1
            }
        } else {
            await turn?.savesFinished()
            current = try await startingState()
        }
        while true {
            let webAuthToken = try await unseal(current.sealed)
            let started = ContinuousClock.now
            let response: CloudKitResponse<Value>
            do throws(CloudKitError) {
                response = try await call(CloudKitWebAuthToken(webAuthToken))
            } catch {
                if error.lateAnswer != nil {
                    // Timed out: not retried (a retry would race its own first attempt for the token);
                    // the late answer is awaited in the grant's turn (`perform`).
                    observer.upstream(started: started, outcome: error.kind.rawValue)
                    await save(error.rotatedToken, replacing: current)
                    throw error
                }
                // Throws unless there is a newer stored token to try.
                current = try await recover(from: error, started: started, current: current, followed: followed)
                followed += 1
                continue
            }
            observer.upstream(started: started, outcome: "ok")
            return (response.value, response.rotatedToken, current)
        }
    }

    /// After CloudKit refused a call: the newer stored token to try next, or the error to throw.
    private func recover(
        from failure: CloudKitError, started: ContinuousClock.Instant, current: GrantStates.State, followed: Int
    ) async throws(CloudKitError) -> GrantStates.State {
        observer.upstream(started: started, outcome: failure.kind.rawValue)
        var error = failure
        if error.kind == .authenticationFailed {
            // The person's session, or the operator's API token? Only a check made after
            // this answer may say "the session": a grant is never ended for the operator.
            let failedAt = credentials.now()
            error.kind = .afterAuthenticationFailure(await credentials.verdict(failureAt: failedAt))
        }
        if error.kind == .sessionDead {
            return try await afterRefusal(error, current: current, followed: followed)
        }
        await save(error.rotatedToken, replacing: current)
        throw error
    }

    /// CloudKit refused the token this call used. Another instance may have rotated it since this
    /// request read the grant, and may still be rotating it call after call: follow the store's
    /// newest copy a few times. The grant ends only when the token refused is the newest one any
    /// instance can hold: the store holds it, and has held it, refused, for `endGrace` (an instance
    /// cut off from the store, holding a newer token unsaved, writes it the moment the store answers
    /// it again: `UnsavedRotations`). Until then the call fails as `unavailable`, never ending the grant.
    private func afterRefusal(
        _ error: CloudKitError, current: GrantStates.State, followed: Int
    ) async throws(CloudKitError) -> GrantStates.State {
        await save(error.rotatedToken, replacing: current)
        switch await rotatedElsewhere(than: current) {
        case .newer(let latest) where followed < Self.maxFollows:
            return latest
        case .newer:
            throw CloudKitError(.unavailable, reason: "the connection's token is changing on another instance")
        case .unreadable:
            // Whether another instance saved a newer token cannot be known: never end the grant on that.
            throw CloudKitError(.unavailable, reason: "the store did not answer")
        case .gone:
            throw error
        case .waiting(let stored):
            states.noteWaiting(grant.grantID, true)
            throw await signInRequired(stored)
        case .parked(let stored):
            // The person signed in again (`Reconnections`): the new token, re-sealed for this grant.
            if followed < Self.maxFollows, let installed = await installParked(stored) { return installed }
            throw CloudKitError(.unavailable, reason: "the new sign-in could not be installed yet")
        case .refused(let stored):
            // A token this process rotated to but could not install (the store held another) is
            // tried once, as a successor of the stored one, before the grant may end.
            if followed < Self.maxFollows, let orphan = states.takeOrphan(grant.grantID), orphan != current.sealed {
                return GrantStates.State(
                    sealed: orphan, version: stored.version, unsaved: true, replaced: stored.sealed)
            }
            try await confirmEnd(stored, error: error)
            // The newest token any instance can hold is dead. Only the person signing in to iCloud
            // again brings one back: the grant waits for that instead of ending (issue 39).
            let marked: Int?
            do throws(OAuthError) {
                marked = try await oauth.markWaitingForSignIn(grantID: grant.grantID, expectedVersion: stored.version)
            } catch {
                throw CloudKitError(.unavailable, reason: "the store did not answer")
            }
            guard marked != nil else { throw CloudKitError(.unavailable, reason: "the connection changed meanwhile") }
            observer.event(.warning, "cloudkit.sign_in_required", grant: grant)
            states.noteWaiting(grant.grantID, true)
            throw await signInRequired(nil)
        }
    }

    /// Returns when the grant may end now: the grace is off (one process holds every token of the
    /// store, SQLite), or the grant's stored token has been stamped refused for `endGrace`. Otherwise
    /// stamps the first refusal and throws `unavailable`.
    private func confirmEnd(_ stored: StoredSealedToken, error: CloudKitError) async throws(CloudKitError) {
        guard endGrace.duration > .zero else { return }
        let now = endGrace.clock.epochSeconds()
        if let since = stored.endingSince {
            if now - since >= endGrace.duration.wholeSeconds { return }
        } else {
            _ = try? await oauth.markEnding(grantID: grant.grantID, expectedVersion: stored.version, at: now)
            observer.event(.warning, "cloudkit.session_end_pending", grant: grant)
        }
        throw CloudKitError(.unavailable, reason: "CloudKit refused the stored token; waiting for other instances")
    }

    private func unseal(_ sealed: [UInt8]) async throws(CloudKitError) -> String {
        let opened: Result<[UInt8], VaultError>
        do throws(VaultError) {
            opened = .success(
                try await vault.unseal(
                    RelayVault.SealedGrant(bytes: sealed), tokenBoundKey: TokenBoundKey(bytes: grant.boundSecret),
                    token: token, context: context))
        } catch {
            opened = .failure(error)
        }
        return try unsealed(opened)
    }

    /// The CloudKit token, or what a vault failure means for the call.
    private func unsealed(_ opened: Result<[UInt8], VaultError>) throws(CloudKitError) -> String {
        switch opened {
        case .success(let bytes):
            return String(decoding: bytes, as: UTF8.self)
        case .failure(.keyServiceUnavailable), .failure(.keyServiceThrottled):
            throw CloudKitError(.unavailable, reason: "the key service did not answer")
        case .failure(.unknownKey), .failure(.keyFile):
            // This instance lacks the master key the grant was sealed with (a rotation not yet rolled
            // out everywhere): an operator problem, not a dead grant. Keep the grant; say "try later".
            observer.event(.error, "vault.unknown_key", grant: grant)
            throw CloudKitError(.unavailable, reason: "the key service cannot open this grant yet")
        case .failure(let error):
            // A grant whose seal no longer opens cannot be used again: end it so the client reconnects.
            observer.event(.error, "vault.unseal_failed", grant: grant, reason: "\(error)")
            throw CloudKitError(.sessionDead)
        }
    }

    /// What the store says after CloudKit refused a token.
    enum StoredAfterRefusal {
        /// Another token than the refused one: follow it.
        case newer(GrantStates.State)
        /// The refused token itself (or the one an unsaved refused token replaces), after the wait.
        case refused(StoredSealedToken)
        /// The grant is gone.
        case gone
        /// The grant waits for its person to sign in to iCloud again.
        case waiting(StoredSealedToken)
        /// The person signed in again: a new token is parked on the grant.
        case parked(StoredSealedToken)
        /// The store failed.
        case unreadable
    }

    /// The grant's token as stored, once it is another than the one CloudKit just refused. When
    /// old tokens die at once, a call of this grant on another instance can rotate the token a
    /// moment before this call arrives and still be saving the successor: the store is read again
    /// for up to `rotationSaveWait` before the token counts as refused.
    private func rotatedElsewhere(than used: GrantStates.State) async -> StoredAfterRefusal {
        let deadline = ContinuousClock.now + Self.rotationSaveWait
        while true {
            let stored: StoredSealedToken?
            do throws(OAuthError) {
                stored = try await oauth.sealedToken(grantID: grant.grantID)
            } catch {
                return .unreadable
            }
            guard let stored else { return .gone }
            if stored.parked != nil { return .parked(stored) }
            if stored.waitingSince != nil { return .waiting(stored) }
            // The token this call used, or (unsaved) an older one of its chain: nothing new yet.
            if stored.sealed != used.sealed, !used.bases.contains(stored.sealed) {
                return .newer(GrantStates.State(sealed: stored.sealed, version: stored.version))
            }
            guard ContinuousClock.now < deadline else { return .refused(stored) }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// How long a refused token waits for another instance's rotation to reach the store: a
    /// CloudKit response's re-seal and one conditional write, with room for a slow store.
    static let rotationSaveWait = Duration.seconds(2)

    /// How many newer stored tokens one call tries after CloudKit refused the one it had.
    static let maxFollows = 3

    /// Re-seals and stores a rotated token. A store failure must not fail a call that CloudKit
    /// already carried out: the token is then kept in memory for this process's next call.
    /// Runs in a task of its own: a cancelled call (a stdio client's `notifications/cancelled`) must not fail
    /// the key-service or store request of a token CloudKit already named, the only live one when CloudKit
    /// kills old tokens at once.
    private func save(_ rotated: CloudKitWebAuthToken?, replacing current: GrantStates.State) async {
        guard let rotated else { return }
        await Task {
            guard let sealed = await self.resealed(rotated) else { return }
            await self.store(sealed, replacing: current)
        }.value
    }

    private func resealed(_ rotated: CloudKitWebAuthToken) async -> [UInt8]? {
        do throws(VaultError) {
            return try await vault.reseal(
                Array(rotated.rawValue.utf8), tokenBoundKey: TokenBoundKey(bytes: grant.boundSecret), token: token,
                context: context
            ).bytes
        } catch {
            observer.event(.error, "vault.reseal_failed", grant: grant, reason: "\(error)")
            return nil
        }
    }

    private func store(_ sealed: [UInt8], replacing current: GrantStates.State) async {
        await writer.write(sealed, replacing: current, grant: grant)
    }
}
