import RelayHTTP
import RelayStore
import RelaySync

/// A grant's sealed CloudKit token as stored (`AuthorizationServer.sealedToken(grantID:)`).
package struct StoredSealedToken: Sendable {
    package var sealed: [UInt8]
    package var version: Int
    /// When (epoch seconds) an instance first saw CloudKit refuse this token; nil when none has.
    package var endingSince: Int?
    /// Since when (epoch seconds) the grant waits for its person to sign in to iCloud again
    /// (`Reconnections`); nil when it does not.
    package var waitingSince: Int? = nil
    /// The token of a completed sign-in, not yet re-sealed for the grant: the sealed bytes and the
    /// data key bound to `parkingToken` (open both with `Vault.unseal`).
    package var parked: [UInt8]? = nil
    package var parkedKey: [UInt8]? = nil
    /// The token-like string `parkedKey` is bound to.
    package var parkingToken: String = ""
    /// The link the waiting grant's tool calls show (`Reconnections+ShownLink`); nil before the first.
    package var signInLink: ShownSignInLink? = nil
}

/// The OAuth 2.1 authorization server of MustDo Relay: discovery documents, dynamic client
/// registration and client ID metadata documents, `/authorize` with the consent page, the Apple
/// sign-in bridge, `/token`, `/revoke`, the disconnect and connections pages, and bearer validation
/// (with "last used") for `/mcp`.
///
/// ```swift
/// let oauth = AuthorizationServer(
///     configuration: OAuthConfiguration(issuer: "https://relay.example"), store: store,
///     secrets: secrets, signIn: cloudKitSignIn, sealer: vaultSealer, binder: vaultBinder)
/// var router = Router()
/// oauth.register(on: &router)
/// let grant = try await oauth.validateBearer(request)   // in the MCP endpoint
/// ```
package final class AuthorizationServer: Sendable {
    /// The settings it runs with.
    package let configuration: OAuthConfiguration
    let context: OAuthContext
    let paths: EndpointPaths
    let discovery: DiscoveryDocuments
    let clients: ClientRegistry
    let pending: PendingRequests
    let grants: Grants
    let codes: CodeExchange
    let refreshes: RefreshRotation
    let bearer: BearerValidation
    let revocation: Revocation
    let bridge: SignInBridge
    let sessions: PageSessions
    let reconnections: Reconnections
    let connections: Connections
    let usage: UsageRecorder
    let activity: ActivityLog
    let pages: Pages
    let pageLimiter: SharedLimiter
    let tokenFailures: SharedLimiter
    /// The operator's actions on this server's records (the relay uses it for its grants gauge).
    package let admin: OAuthAdmin

    /// Assembles the server. `configuration.problems()` must be empty (checked at startup by the
    /// configuration check). Without a `metadataFetcher`, client ID metadata documents are off and
    /// the metadata says so.
    package init(
        configuration: OAuthConfiguration,
        store: any Store,
        secrets: OAuthSecrets,
        signIn: any AppleSignIn,
        sealer: any GrantSealer,
        binder: any TokenBinder,
        metadataFetcher: (any ClientMetadataFetcher)? = nil,
        clock: any WallClock = SystemClock(),
        events: @escaping @Sendable (OAuthEvent) -> Void = { _ in }
    ) {
        precondition(configuration.problems().isEmpty, "invalid OAuth configuration: \(configuration.problems())")
        self.configuration = configuration
        let context = OAuthContext(
            configuration: configuration, store: store, hasher: TokenHasher(secrets: secrets), binder: binder,
            clock: clock, events: events)
        self.context = context
        paths = EndpointPaths(callback: configuration.callbackPath)
        discovery = DiscoveryDocuments(configuration, paths: paths, metadataDocuments: metadataFetcher != nil)
        clients = ClientRegistry(
            context: context,
            documents: metadataFetcher.map {
                ClientMetadataResolver(context: context, fetcher: $0, fetches: DocumentFetches())
            },
            newClients: SharedLimiter(
                name: "registrations", limit: configuration.registrationRateLimit, context: context),
            capacity: ClientCapacity(context: context),
            shedding: RegistrationShedding(threshold: configuration.registrationRateLimit.requests))
        pending = PendingRequests(context: context)
        grants = Grants(context: context)
        let issuer = TokenIssuer(context: context, grants: grants)
        codes = CodeExchange(context: context, grants: grants, issuer: issuer)
        refreshes = RefreshRotation(context: context, grants: grants, issuer: issuer)
        bearer = BearerValidation(context: context)
        revocation = Revocation(context: context, grants: grants)
        sessions = PageSessions(context: context)
        connections = Connections(context: context, grants: grants)
        usage = UsageRecorder(context: context)
        activity = ActivityLog(context: context)
        reconnections = Reconnections(context: context)
        bridge = SignInBridge(
            context: context, pending: pending, grants: grants, sessions: sessions, signIn: signIn, sealer: sealer,
            reconnections: reconnections)
        pages = Pages(configuration: configuration, paths: paths)
        pageLimiter = SharedLimiter(name: "pages", limit: configuration.pageRateLimit, context: context)
        tokenFailures = SharedLimiter(name: "token-failures", limit: configuration.tokenFailureLimit, context: context)
        admin = OAuthAdmin(context: context)
    }

    // MARK: bearer validation (the MCP endpoint's authenticator)

    /// Decides without touching the store when it can: the 401 for a request with no bearer token,
    /// a token in the query string, another scheme, or a token that is not well formed. nil means
    /// `validateBearer` must look the token up.
    package func bearerPrecheck(_ request: Request) -> OAuthError? {
        if case .failure(let error) = bearer.presentedToken(request) { return error }
        return nil
    }

    /// Validates the request's `Authorization: Bearer` token for `resource` (default: this
    /// server's MCP endpoint). Throws the 401 (with `WWW-Authenticate`) for anything else.
    package func validateBearer(_ request: Request, resource: String? = nil) async throws(OAuthError) -> BearerGrant {
        try await bearer.validate(request, resource: resource ?? configuration.resource)
    }

    /// Notes that `grant` (just validated, or found in a cache of validations) served a request
    /// today, for "last used" on the connections page: at most one store write per grant and day,
    /// made in a task of its own so the response never waits for it (`UsageRecorder`). Otherwise
    /// costs nothing but a lock and a set lookup, and nothing at all once the record says today.
    package func noteUse(_ grant: BearerGrant) {
        guard let day = usage.claim(grant) else { return }
        let usage = self.usage
        Task { await usage.record(grant, day: day) }
    }

    /// Counts `count` of `action` for `grant` today (UTC) on the connections page (issue 44), in a
    /// task of its own: the tool result never waits for the write, and a failed write is reported
    /// and dropped (`ActivityLog`). No I/O on the caller's path.
    package func noteActivity(_ grant: BearerGrant, action: ConnectionAction, count: Int) {
        guard
            let writer = activity.note(grantID: grant.grantID, endsAt: grant.grantEndsAt, action: action, count: count)
        else { return }
        Task { await writer() }
    }

    /// `noteActivity`, waiting for the write (tests; a concurrent writer of the same grant may
    /// still be writing this count when it returns).
    package func recordActivity(_ grant: BearerGrant, action: ConnectionAction, count: Int) async {
        await activity.note(grantID: grant.grantID, endsAt: grant.grantEndsAt, action: action, count: count)?()
    }

    /// `noteUse`, waiting for the write (tests).
    func recordUse(_ grant: BearerGrant) async {
        guard let day = usage.claim(grant) else { return }
        await usage.record(grant, day: day)
    }

    /// The 401 that makes a client reconnect (after `deleteGrant` for a dead CloudKit session);
    /// its challenge names the metadata of the URL `request` used.
    package func invalidTokenResponse(
        _ detail: String = "The connection ended; connect again.", for request: Request? = nil
    ) -> Response {
        bearer.failure(.invalidToken, detail, request: request).response()
    }

    /// The `WWW-Authenticate` value of the 403 for a valid token that lacks a scope a request
    /// needs (RFC 6750 §3.1, MCP 2025-11-25 step-up): `Bearer error="insufficient_scope",
    /// scope="<needed ∪ granted, in the server's order>", resource_metadata="…"`.
    package func insufficientScopeChallenge(needed: [String], granted: [String]) -> String {
        bearer.insufficientScopeChallenge(needed: needed, granted: granted)
    }

    // MARK: grants (for RelayService: CloudKit token rotation, 421, admin)

    /// Deletes a grant and every token it issued (RelayService calls this when CloudKit answers 421).
    /// Returns whether the grant existed.
    @discardableResult
    package func deleteGrant(_ grantID: String, reason: String) async throws(OAuthError) -> Bool {
        try await grants.revoke(grantID, reason: reason)
    }

    /// The grant's current sealed token and version (after losing a `replaceSealed` race), and
    /// since when (epoch seconds) an instance has seen CloudKit refuse that token (`markEnding`).
    package func sealedToken(grantID: String) async throws(OAuthError) -> StoredSealedToken? {
        guard let item = try await context.get(OAuthKeys.grant(grantID)), let grant = GrantRecord(item: item),
            grant.state == .active
        else { return nil }
        let a = item.attributes
        return StoredSealedToken(
            sealed: grant.sealed, version: item.version, endingSince: a[Self.endingAttribute]?.intValue,
            waitingSince: a.int(Reconnections.waitingAttribute), parked: a.bytes(Reconnections.parkedAttribute),
            parkedKey: a.bytes(Reconnections.parkedKeyAttribute), parkingToken: Reconnections.parkingToken(grantID),
            signInLink: ShownSignInLink(attributes: a))
    }

    // MARK: signing in to iCloud again (issue 39: a connection whose newest CloudKit token is dead)

    /// Marks the grant as waiting for its person to sign in to iCloud again, instead of ending it
    /// (if still at `expectedVersion`); returns the new version, or nil when the grant changed.
    package func markWaitingForSignIn(grantID: String, expectedVersion: Int) async throws(OAuthError) -> Int? {
        try await reconnections.markWaiting(grantID: grantID, expectedVersion: expectedVersion)
    }

    /// A new single-use link (a day long) that lets the person sign in to iCloud again for the grant.
    /// A capability: show it to the grant's client only, never log it.
    package func signInAgainLink(grantID: String) async throws(OAuthError) -> String {
        try await reconnections.link(grantID: grantID)
    }

    /// A fresh link handle for `replaceSignInLink` (seal it for the grant first).
    package func newSignInLinkHandle() -> String { Reconnections.newHandle() }

    /// The URL of the link whose handle a grant's `signInLink` seals.
    package func signInLinkURL(handle: String) -> String { reconnections.url(handle: handle) }

    /// Whether the waiting grant's shown link may be shown again: not spent, and long enough to live.
    package func isShowable(_ link: ShownSignInLink, grantID: String) async throws(OAuthError) -> Bool {
        try await reconnections.isShowable(link, grantID: grantID)
    }

    /// Makes `handle` (sealed for the grant as `sealedHandle`) the link the waiting grant's tool calls show,
    /// if the grant is still at `expectedVersion`; returns its URL, or nil when the grant changed meanwhile.
    package func replaceSignInLink(
        grantID: String, expectedVersion: Int, handle: String, sealedHandle: [UInt8], previous: ShownSignInLink?
    ) async throws(OAuthError) -> String? {
        try await reconnections.replaceShownLink(
            grantID: grantID, expectedVersion: expectedVersion, handle: handle, sealedHandle: sealedHandle,
            previous: previous)
    }

    /// Installs a parked token the grant's next call re-sealed (`resealed`, under the grant's own data
    /// key) if the grant is still at `expectedVersion`: the parked copy and every refusal stamp go.
    /// Returns the new version, or nil when the grant changed or is gone.
    package func installParked(grantID: String, expectedVersion: Int, resealed: [UInt8]) async throws(OAuthError)
        -> Int?
    {
        try await context.update(
            OAuthKeys.grant(grantID),
            ItemUpdate(
                set: ["sealed": .bytes(resealed)],
                remove: [
                    Self.endingAttribute, Reconnections.waitingAttribute, Reconnections.parkedAttribute,
                    Reconnections.parkedKeyAttribute,
                ] + Reconnections.linkAttributes),
            condition: .versionEquals(expectedVersion))?.version
    }

    /// Replaces the grant's sealed token (CloudKit rotated it) if the grant is still at
    /// `expectedVersion`; returns the new version, or nil when the grant changed or is gone. A
    /// saved rotation clears the grant's `markEnding` stamp and its waiting for a sign-in: the token they were about is
    /// no longer current.
    package func replaceSealed(grantID: String, expectedVersion: Int, sealed: [UInt8]) async throws(OAuthError) -> Int?
    {
        try await context.update(
            OAuthKeys.grant(grantID),
            ItemUpdate(
                set: ["sealed": .bytes(sealed)],
                remove: [Self.endingAttribute, Reconnections.waitingAttribute] + Reconnections.linkAttributes),
            condition: .versionEquals(expectedVersion))?.version
    }

    /// Stamps the grant (if still at `expectedVersion`) with the time CloudKit first refused its
    /// stored token: an instance ends the grant only once the stamp is older than the grace in
    /// which another instance could still save a newer token. Returns the new version, or nil when
    /// the grant changed meanwhile.
    package func markEnding(grantID: String, expectedVersion: Int, at epochSeconds: Int) async throws(OAuthError)
        -> Int?
    {
        try await context.update(
            OAuthKeys.grant(grantID), ItemUpdate(set: [Self.endingAttribute: .int(epochSeconds)]),
            condition: .versionEquals(expectedVersion))?.version
    }

    /// The grant attribute `markEnding` writes (docs/storage-schema.md).
    static let endingAttribute = "endingSince"

    /// `userID` for a CloudKit user record name (the same HMAC the bridge computes).
    package func userID(recordName: String) -> String { context.hasher.userID(recordName: recordName) }
}
