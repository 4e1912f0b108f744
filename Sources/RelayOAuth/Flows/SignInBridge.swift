import RelayHTTP

/// The Apple sign-in bridge. Apple's CloudKit sign-in returns to one fixed callback URL and
/// cannot carry OAuth `state`, so the pending request is found through the browser's cookie, and
/// accepted only from the tab that pressed its button (`TabBinding`) within the consent window;
/// one conditional delete lets exactly one callback through. Then `users/caller` says who signed in, and either a grant
/// and a code are made (purpose `authorize`), or every grant of that user is deleted (purpose
/// `disconnect`), or a short connections-page session is opened for that user (purpose
/// `connections`); the last two keep nothing from the sign-in but the user ID.
struct SignInBridge: Sendable {
    let context: OAuthContext
    let pending: PendingRequests
    let grants: Grants
    let sessions: PageSessions
    let signIn: any AppleSignIn
    let sealer: any GrantSealer
    let reconnections: Reconnections

    /// What a completed callback leads to.
    enum Completion: Sendable, Equatable {
        /// Send the browser to the client with the code.
        case authorized(redirect: String)
        /// Show how many connections were removed.
        case disconnected(count: Int)
        /// Send the browser to the connections page with this session cookie.
        case connections(cookie: Cookie)
        /// The connection's new CloudKit token is parked; its next tool call works again.
        case reconnected
    }

    /// Apple's sign-in URL for the browser.
    func signInURL() async throws(OAuthError) -> String {
        do {
            let url = try await signIn.signInURL()
            guard case .success(let uri) = ParsedURI.parse(url), uri.scheme == "https" || uri.scheme == "http" else {
                throw OAuthError(.temporarilyUnavailable, "Apple's sign-in is not available right now.")
            }
            return url
        } catch {
            context.events(.failure("sign-in URL unavailable"))
            throw OAuthError(.temporarilyUnavailable, "Apple's sign-in is not available right now.")
        }
    }

    /// The outcome of a callback whose pending request was found, accepted and consumed.
    struct Outcome: Sendable {
        /// What to do, or why it failed after the request was consumed (the page can still offer
        /// the way back to the client).
        var result: Result<Completion, OAuthError>
        var record: PendingRequest
        /// The binding cookie to clear.
        var cookieName: String
    }

    /// Handles the callback page's POST: `token` from the query Apple returned with, `tab` from the
    /// tab's `sessionStorage`. Throws only when no pending request could be consumed (no cookie,
    /// foreign cookie, another tab, expired window, already used).
    func complete(_ request: Request, token: String?, tab: String?) async throws(OAuthError) -> Outcome {
        let consumed = try await pending.consumeForCallback(request, tab: tab)
        return Outcome(
            result: await finish(token, consumed.record), record: consumed.record, cookieName: consumed.cookieName)
    }

    private func finish(_ token: String?, _ record: PendingRequest) async -> Result<Completion, OAuthError> {
        do throws(OAuthError) {
            guard let token else {
                throw OAuthError(.signInFailed, "Apple's sign-in did not return a session.")
            }
            let identity = try await identify(token)
            let userID = context.hasher.userID(recordName: identity.userRecordName)
            switch record.purpose {
            case .disconnect:
                let count = try await grants.revokeAll(userID: userID, reason: "disconnected by the user")
                context.events(.disconnected(grants: count))
                return .success(.disconnected(count: count))
            case .connections:
                return .success(.connections(cookie: try await sessions.create(userID: userID)))
            case .reconnect:
                // Only the connection's own Apple user may bring it back (`Reconnections.accept`).
                guard let grantID = record.grantID else { throw OAuthError(.serverError, "The request is incomplete.") }
                try await reconnections.accept(
                    grantID: grantID, userID: userID, webAuthToken: identity.rotatedToken ?? token, sealer: sealer)
                return .success(.reconnected)
            case .authorize:
                guard let authorization = record.request else {
                    throw OAuthError(.serverError, "The request is incomplete.")
                }
                let (_, code) = try await grants.create(
                    userID: userID, request: authorization, label: record.label, sealer: sealer,
                    webAuthToken: identity.rotatedToken ?? token, lifetime: record.lifetime)
                let redirect = AuthorizationResponse.url(
                    redirectURI: authorization.redirectURI, parameters: [("code", code)], state: authorization.state,
                    issuer: context.configuration.issuer)
                return .success(.authorized(redirect: redirect))
            }
        } catch {
            return .failure(error)
        }
    }

    private func identify(_ token: String) async throws(OAuthError) -> AppleIdentity {
        do {
            return try await signIn.identify(webAuthToken: token)
        } catch let error as OAuthError where [.accountUnsupported, .signInFailed].contains(error.code) {
            throw error
        } catch {
            context.events(.failure("users/caller failed"))
            throw OAuthError(.temporarilyUnavailable, "iCloud did not answer; try again in a moment.")
        }
    }

    /// `ckWebAuthToken` (or the older `ckSession`) from Apple's redirect back.
    static func webAuthToken(in request: Request) -> String? { CloudKitSignInCallback.webAuthToken(in: request) }
}
