import RelayCloudKit
import RelayMCP

/// One person's way into CloudKit: every CloudKit call a to-do tool makes goes through `perform`, which hands
/// it the grant's current web auth token and keeps the token CloudKit rotates to.
///
/// Implementations must:
/// - run one call per grant at a time, the others waiting in order (`GrantSerializer` does this);
/// - store `CloudKitResponse.rotatedToken` (or, on failure, `CloudKitError.rotatedToken`) before the grant's
///   next call starts, because CloudKit may invalidate the old token at once;
/// - report their own refusals as `CloudKitError`: `.throttled` (no status) when too many calls wait,
///   `.sessionDead` when the grant is gone, `.unavailable` when the token cannot be stored, `.cancelled`;
/// - decide what a 401 AUTHENTICATION_FAILED means: turn it into `.sessionDead` only once the API token is
///   shown to be fine (RelayService checks `users/caller` without a web token). Left as `.authenticationFailed`
///   it is reported as the service's misconfiguration (`UPSTREAM_UNAVAILABLE`) and the grant stays.
///
/// RelayService implements it on the vault and the grant store; `MemoryCloudKitSession` keeps the token in memory
/// for tests and the demo. The token must be read inside the grant's turn (another request of the same grant
/// may have rotated it since this one was authenticated):
///
/// ```swift
/// try await serializer.run(grant: grantID) { () async throws(CloudKitError) -> Value in
///     let (token, version) = try await currentToken()       // get the grant, unseal
///     do throws(CloudKitError) {
///         let response = try await call(token)
///         try await store(response.rotatedToken, replacing: version)   // reseal, compare-and-swap
///         return response.value
///     } catch {
///         try? await store(error.rotatedToken, replacing: version)
///         throw error
///     }
/// }
/// ```
package protocol CloudKitSession: Sendable {
    /// Runs `call` with the current token, stores the token it rotated to, and returns its value.
    func perform<Value: Sendable>(
        _ call: (CloudKitWebAuthToken) async throws(CloudKitError) -> CloudKitResponse<Value>
    ) async throws(CloudKitError) -> Value

    /// Runs `body`, the CloudKit calls of one tool call made one after another through `perform`, as one turn of
    /// the grant: each call may start with the token the previous one rotated to, passed in memory, instead of
    /// waiting for its save (issue 42, "fewer round trips"). Every rotation must still be stored, in order, before
    /// the grant's next turn starts.
    func inOneTurn<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value
}

extension CloudKitSession {
    /// No turn of its own: each `perform` takes its own (a session whose token lives in memory has nothing to save).
    package func inOneTurn<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        try await body()
    }
}

/// What the to-do tools need from the MCP principal (the authenticated grant): its CloudKit session, and
/// (for the endpoint's check before every call) the scopes it was granted.
package protocol TodoPrincipal: MCPPrincipal {
    /// The session of the grant the request was authenticated with.
    var session: any CloudKitSession { get }
    /// Who the call is for, stable across their grants and the relay's instances (the hosted relay: the user ID):
    /// `list_todos` cursors are bound to it, so one person's cursor is refused for another.
    var cursorOwner: String { get }
}

extension TodoPrincipal {
    /// No owner: one person only (the local server, tests).
    package var cursorOwner: String { "" }
}
