import RelayHTTP

/// What a valid bearer token gives the MCP endpoint: who, for which client and scopes, and the
/// material RelayService needs to open the grant's sealed CloudKit token with the presented token.
package struct BearerGrant: Sendable, Equatable, CustomStringConvertible {
    /// The grant the token belongs to (for CloudKit 421: `AuthorizationServer.deleteGrant`).
    package let grantID: String
    /// HMAC of the CloudKit user record name.
    package let userID: String
    package let clientID: String
    /// What this request may do: the token's scopes that the grant still holds, in the server's
    /// order. The grant's scopes (what the person consented to) bound every token; a refresh may
    /// issue a token with fewer. The MCP endpoint checks a tool's required scopes against these.
    package let scopes: [String]
    /// The audience the token was issued for (the canonical resource).
    package let resource: String
    /// The grant's sealed CloudKit token, as the sealer (or the last re-seal) produced it.
    package let sealed: [UInt8]
    /// The grant's store version, for `AuthorizationServer.replaceSealed` (compare-and-swap).
    package let grantVersion: Int
    /// The grant secret bound to this token (`TokenBinder.unbind` with the presented token opens it).
    package let boundSecret: [UInt8]
    /// The keyed hash of the token: a cache key for an unwrapped data key, never the token itself.
    package let tokenHash: String
    /// When the token expires, seconds since the epoch.
    package let expiresAt: Int
    /// The day (UTC, days since the epoch) the grant's record said it was last used, as read by the
    /// validation; `AuthorizationServer.noteUse` writes today's at most once a day.
    package internal(set) var lastUsedDay: Int? = nil
    /// The grant's hard end (epoch seconds): what the person chose at consent, within the
    /// operator's longest lifetime. Its activity counts never outlive it. nil: not known.
    package internal(set) var grantEndsAt: Int? = nil
    /// The grant waited for its person to sign in to iCloud again (or held the token of that sign-in, not
    /// yet installed) when read: its CloudKit token is known dead, so a call asks the store, not CloudKit.
    package internal(set) var awaitsSignIn = false

    /// Identifiers only: no sealed bytes, no bound secret.
    package var description: String { "BearerGrant(grant: \(grantID), client: \(clientID), scopes: \(scopes))" }
}

/// Bearer validation for the MCP endpoint (RFC 6750 §2.1 header only; RFC 8707 audience).
struct BearerValidation: Sendable {
    let context: OAuthContext

    /// The challenge without an error (no token was sent): where the resource metadata of the
    /// URL the request used is (`…/mcp` or `…/mcp/`), and which scopes to ask for. Every scope the
    /// server offers, so that a client connecting from this 401 asks for everything the tools can
    /// use and the person decides on the consent page (MCP 2025-11-25 "Scope Selection Strategy";
    /// the scopes are the same as `scopes_supported`).
    func challenge(for request: Request?) -> String {
        "Bearer resource_metadata=\"\(metadataURL(for: request))\", scope=\"\(scopeList(context.configuration.scopes))\""
    }

    /// The 403 challenge for a valid token without the scope a request needs (RFC 6750 §3.1). Its
    /// `scope` names `needed` together with what the token already holds, in the server's order:
    /// the "recommended approach" of MCP 2025-11-25 ("Scope Challenge Handling"), so a client that
    /// re-authorizes with exactly this set (the 1.x Python SDK does) keeps what it had.
    func insufficientScopeChallenge(needed: [String], granted: [String], request: Request? = nil) -> String {
        let offered = context.configuration.scopes
        var scopes = offered.filter { needed.contains($0) || granted.contains($0) }
        scopes += needed.filter { !offered.contains($0) && !scopes.contains($0) }
        return "Bearer error=\"insufficient_scope\", scope=\"\(scopeList(scopes))\", "
            + "resource_metadata=\"\(metadataURL(for: request))\""
    }

    private func metadataURL(for request: Request?) -> String {
        context.configuration.resourceMetadataURL(forPath: request.map { String($0.path) } ?? "")
    }

    private func scopeList(_ scopes: [String]) -> String { scopes.joined(separator: " ") }

    func failure(_ code: OAuthError.Code?, _ detail: String, request: Request?) -> OAuthError {
        var header = challenge(for: request)
        if let code { header += ", error=\"\(code.rawValue)\", error_description=\"\(detail)\"" }
        return OAuthError(code ?? .invalidToken, detail, status: .unauthorized, headers: ["WWW-Authenticate": header])
    }

    /// The token from `Authorization: Bearer`, or the 401 to send when it is missing or cannot be
    /// one of ours. Decides without any store read.
    func presentedToken(_ request: Request) -> Result<String, OAuthError> {
        if let query = request.rawQuery, let pairs = FormDecoding.pairs(query),
            pairs.contains(where: { $0.name == "access_token" })
        {
            return .failure(
                failure(.invalidRequest, "Send the access token in the Authorization header only.", request: request))
        }
        let headers = request.headers.values("authorization")
        guard let header = headers.first else {
            return .failure(failure(nil, "An access token is required.", request: request))
        }
        guard headers.count == 1, let token = BearerHeader.token(in: header) else {
            return .failure(failure(.invalidRequest, "Use the Bearer scheme.", request: request))
        }
        guard TokenKind.accessToken.accepts(token) else {
            return .failure(failure(.invalidToken, "The access token is malformed.", request: request))
        }
        return .success(token)
    }

    /// Validates the request's bearer token for `resource`.
    func validate(_ request: Request, resource: String) async throws(OAuthError) -> BearerGrant {
        let token = try presentedToken(request).get()
        let invalid = failure(.invalidToken, "The access token is invalid, expired or revoked.", request: request)
        guard let (item, _) = try await context.find(context.hasher.candidates(token), key: OAuthKeys.accessToken),
            let record = TokenRecord(item: item)
        else { throw invalid }
        guard ResourceIndicator.matches(record.resource, expected: resource) else {
            throw failure(.invalidToken, "The access token was issued for another resource.", request: request)
        }
        guard let grantItem = try await context.get(OAuthKeys.grant(record.grantID)),
            let grant = GrantRecord(item: grantItem), grant.state == .active, grant.clientID == record.clientID,
            grant.endsAt > context.now
        else { throw invalid }
        return BearerGrant(
            grantID: grant.id, userID: grant.userID, clientID: grant.clientID,
            scopes: record.scope.tokens.filter(grant.scope.tokens.contains),
            resource: record.resource, sealed: grant.sealed, grantVersion: grantItem.version, boundSecret: record.bound,
            tokenHash: record.hash, expiresAt: record.expiresAt, lastUsedDay: grant.lastUsedDay,
            grantEndsAt: grant.endsAt,
            awaitsSignIn: grant.signInSince != nil || grantItem.attributes[Reconnections.parkedAttribute] != nil)
    }
}
