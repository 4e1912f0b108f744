import RelayHTTP
import RelayMCP
import RelayOAuth
import RelayStore
import RelaySync
import RelayTodo
import RelayVault

/// Who an MCP request acts for: one validated grant and its CloudKit session.
struct GrantPrincipal: TodoPrincipal {
    let grant: BearerGrant
    let session: any CloudKitSession

    /// The scopes the endpoint checks before every tool call: read from the token and grant records
    /// the bearer validation already loaded (or the cache holds), so the check costs no store read.
    var scopes: [String] { grant.scopes }
    /// The person (HMAC of their Apple user record name): their `list_todos` cursors are theirs only.
    var cursorOwner: String { grant.userID }
}

/// The MCP endpoint's authenticator: OAuth bearer validation (header only, audience, expiry,
/// revocation), a short-lived cache of validated tokens so requests without upstream work need
/// no store read, the dead-session path (CloudKit 421 → grant deleted → 401), and "last used" for
/// the connections page (at most one store write per grant and day, off the response's path).
struct RelayAuthenticator: MCPAuthenticator {
    let oauth: AuthorizationServer
    let vault: Vault
    let cache: BearerCache
    let serializer: GrantSerializer
    let states: GrantStates
    let observer: UpstreamObserver
    let credentials: APITokenMonitor
    /// Tool calls per grant and minute (`RELAY_MCP_TOOL_CALLS_PER_MINUTE`); nil: no limit.
    var toolCalls: RateLimiter? = nil
    var clock: any WallClock = SystemClock()
    /// How long a refused stored CloudKit token waits before its grant ends (`SessionEndGrace`).
    var endGrace = SessionEndGrace(duration: .zero)

    func authenticateImmediately(_ request: Request) -> MCPAuthentication<GrantPrincipal>? {
        // A token found in the cache passed the precheck (format and checksum) when it was validated
        // moments ago, so a request that also meets the precheck's request-level rules (no query,
        // one Authorization header) skips it and its SHA-256. Anything else takes the full path.
        if request.rawQuery == nil, let token = BearerHeader.token(of: request),
            let grant = cache.lookup(BearerCache.key(token))
        {
            return authorized(grant, token: token)
        }
        if let error = oauth.bearerPrecheck(request) { return .rejected(error.response()) }
        guard let token = BearerHeader.token(of: request), let grant = cache.lookup(BearerCache.key(token)) else {
            return nil
        }
        return authorized(grant, token: token)
    }

    func authenticate(_ request: Request) async -> MCPAuthentication<GrantPrincipal> {
        do {
            let started = cache.now()
            let grant = try await oauth.validateBearer(request)
            guard let token = BearerHeader.token(of: request) else {
                return .rejected(oauth.invalidTokenResponse(for: request))
            }
            cache.insert(grant, key: BearerCache.key(token), validatedSince: started)
            return authorized(grant, token: token)
        } catch {
            return .rejected(error.response())
        }
    }

    func sessionEnded(_ request: Request, principal: GrantPrincipal) async -> Response {
        // Forget the grant in every cache before and after deleting it (the deletion's own event
        // does it again): no request of this grant is served from memory once this answer is sent.
        cache.evict(grantID: principal.grant.grantID)
        states.forget(principal.grant.grantID)
        vault.evictCachedKeys(grantID: principal.grant.grantID)
        observer.event(.info, "cloudkit.session_ended", grant: principal.grant)
        _ = try? await oauth.deleteGrant(principal.grant.grantID, reason: "CloudKit session ended")
        return oauth.invalidTokenResponse(for: request)
    }

    /// Counts the call against the grant's budget; past it, `RATE_LIMITED` with the seconds left in
    /// the window. Per grant, not per address: every claude.ai or ChatGPT user arrives from the same few
    /// addresses of the vendor.
    func admitToolCall(_ principal: GrantPrincipal) -> ToolError? {
        guard let toolCalls, let wait = toolCalls.admit(key: principal.grant.grantID, now: clock.epochSeconds()) else {
            return nil
        }
        return TodoError(
            code: .rateLimited, message: "Too many tool calls for this connection. Retry in \(wait) s.",
            retryAfter: wait
        ).toolError
    }

    /// Counts any other request (`ping`, `tools/list`, `initialize`, a refused `tools/call`) against
    /// the same per-grant budget: every request costs a parse and an answer, so none is free.
    func admitRequest(_ principal: GrantPrincipal) -> Int? {
        toolCalls?.admit(key: principal.grant.grantID, now: clock.epochSeconds())
    }

    func insufficientScopeChallenge(principal: GrantPrincipal, needed: [String]) -> String {
        oauth.insufficientScopeChallenge(needed: needed, granted: principal.grant.scopes)
    }

    /// A write that succeeded counts on the connections page (issue 44): one conditional increment
    /// in a task of its own, so the result never waits for it and a failed write changes nothing
    /// the client sees. The grant is the validated principal's, never anything the request names.
    func toolCallSucceeded(_ principal: GrantPrincipal, tool: String, result: ToolResult) {
        guard let (action, count) = ToolActivity.of(tool: tool, result: result) else { return }
        oauth.noteActivity(principal.grant, action: action, count: count)
    }

    /// An authenticated request: its grant was used today.
    private func authorized(_ grant: BearerGrant, token: String) -> MCPAuthentication<GrantPrincipal> {
        oauth.noteUse(grant)
        return .authorized(principal(grant, token: token))
    }

    private func principal(_ grant: BearerGrant, token: String) -> GrantPrincipal {
        GrantPrincipal(
            grant: grant,
            session: GrantSession(
                grant: grant, token: token, oauth: oauth, vault: vault, serializer: serializer, states: states,
                observer: observer, credentials: credentials, endGrace: endGrace))
    }
}
