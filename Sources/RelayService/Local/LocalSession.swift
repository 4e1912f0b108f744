import RelayCloudKit
import RelaySync
import RelayTodo

/// The local server's `CloudKitSession`: the token lives in `auth.json`. Each call takes its turn in this
/// process (`GrantSerializer`), then the lock file (against other `mustdo-relay local` processes of the
/// same person), reads the token inside the lock (another process may have rotated it), calls CloudKit,
/// and writes the token CloudKit rotated to back before letting go, so the next call anywhere uses it.
///
/// No saved sign-in, one for another container or environment, an unsafe file, or a token CloudKit
/// refuses all end as `.sessionDead`; `notSignedInMessage` then says which and what to do (the stdio
/// server turns it into a `NOT_SIGNED_IN` tool result). A token CloudKit refused is removed from the file.
final class LocalSession: CloudKitSession {
    let tokens: LocalAuthFile
    let lock: FileLock
    let container: String
    let environment: String
    private let serializer = GrantSerializer()
    private let lockTimeout: Duration
    /// Why the last call found no usable sign-in.
    private let lastProblem = Locked<String?>(nil)

    init(
        tokens: LocalAuthFile, lock: FileLock, container: String, environment: String,
        lockTimeout: Duration = .seconds(20)
    ) {
        self.tokens = tokens
        self.lock = lock
        self.container = container
        self.environment = environment
        self.lockTimeout = lockTimeout
    }

    func perform<Value: Sendable>(
        _ call: (CloudKitWebAuthToken) async throws(CloudKitError) -> CloudKitResponse<Value>
    ) async throws(CloudKitError) -> Value {
        try await serializer.run(grant: "local") { () async throws(CloudKitError) -> Value in
            let taken: FileLock.Held?
            do throws(LocalTokenError) {
                taken = try await lock.acquire(timeout: lockTimeout)
            } catch {
                lastProblem.withLock { $0 = error.description }
                throw CloudKitError(.unavailable, reason: "the lock file cannot be opened")
            }
            guard let held = taken else {
                // Another local server kept the lock all this time: like a full queue, retry shortly.
                throw CloudKitError(
                    .throttled, reason: "another mustdo-relay local is calling iCloud", retryAfter: .seconds(1))
            }
            defer { held.release() }
            let token = try currentToken()
            do throws(CloudKitError) {
                let response = try await call(token)
                try store(response.rotatedToken)
                return response.value
            } catch {
                if error.kind == .sessionDead {
                    // Nothing rotated survives a refused token; forget it so it is not sent again.
                    if (try? tokens.read())?.token == (error.rotatedToken ?? token).rawValue { try? tokens.remove() }
                    lastProblem.withLock {
                        $0 =
                            "iCloud ended the sign-in (it expired, or the person signed out or changed their password)."
                    }
                } else {
                    try? store(error.rotatedToken)
                }
                // A call cancelled (`notifications/cancelled`) or timed out while CloudKit may still carry it out:
                // its answer may name the only live token. Awaited here, under the lock, so no call goes out with
                // the token it replaces; the wait is bounded by the transfer's own limit.
                if let late = error.lateAnswer, let rotated = await late.rotatedToken() { try? store(rotated) }
                throw error
            }
        }
    }

    /// The saved token for this container and environment, or `.sessionDead` with the reason kept.
    private func currentToken() throws(CloudKitError) -> CloudKitWebAuthToken {
        let saved: LocalAuthFile.Saved?
        do throws(LocalTokenError) {
            saved = try tokens.read()
        } catch {
            throw notSignedIn(error.description)
        }
        guard let saved else { throw notSignedIn("There is no saved iCloud sign-in yet.") }
        guard saved.container == container, saved.environment == environment else {
            throw notSignedIn(
                "The saved sign-in is for \(saved.container) (\(saved.environment)), not \(container) (\(environment)); "
                    + "sessions belong to one container and environment.")
        }
        return CloudKitWebAuthToken(saved.token)
    }

    private func notSignedIn(_ problem: String) -> CloudKitError {
        lastProblem.withLock { $0 = problem }
        return CloudKitError(.sessionDead, reason: "not signed in")
    }

    /// Writes a rotated token back. A token that cannot be written is a failed call: the old one may be
    /// dead already, and the person must learn now rather than at the next call.
    private func store(_ rotated: CloudKitWebAuthToken?) throws(CloudKitError) {
        guard let rotated else { return }
        do throws(LocalTokenError) {
            try tokens.write(
                LocalAuthFile.Saved(token: rotated.rawValue, container: container, environment: environment))
        } catch {
            lastProblem.withLock { $0 = error.description }
            throw CloudKitError(.unavailable, reason: "the rotated token could not be saved")
        }
    }

    /// Saves a token from a fresh sign-in (under the lock, like every other write).
    func saveSignIn(_ token: CloudKitWebAuthToken) async throws(LocalTokenError) {
        guard let held = try await lock.acquire(timeout: lockTimeout) else {
            throw LocalTokenError("another mustdo-relay local kept the lock file \(lock.path) too long; try again")
        }
        defer { held.release() }
        try tokens.write(LocalAuthFile.Saved(token: token.rawValue, container: container, environment: environment))
        lastProblem.withLock { $0 = nil }
    }

    /// Deletes the saved sign-in (under the lock).
    func signOut() async throws(LocalTokenError) {
        guard let held = try await lock.acquire(timeout: lockTimeout) else {
            throw LocalTokenError("another mustdo-relay local kept the lock file \(lock.path) too long; try again")
        }
        defer { held.release() }
        try tokens.remove()
    }

    /// The tool result text when a call found no usable sign-in.
    var notSignedInMessage: String {
        let problem = lastProblem.withLock { $0 } ?? "There is no usable iCloud sign-in."
        return problem
            + " Call the sign_in tool: it opens Apple's sign-in page in the person's browser (or gives a link to "
            + "open), and once they have signed in, call this tool again. From a terminal: mustdo-relay local sign-in."
    }
}
