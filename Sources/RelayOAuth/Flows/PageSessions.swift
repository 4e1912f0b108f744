import RelayCrypto
import RelayHTTP
import RelayStore

/// The connections page's sessions. Apple's callback opens one for the user it names; it lives
/// `connectionsSession` seconds from then (never extended), bound to an HttpOnly cookie whose value
/// is stored only as a keyed hash (the item's key). Every page shown gets a fresh CSRF token (its
/// hash kept on the session); a form spends it in one conditional write, so a replayed or racing
/// copy of a form does nothing.
struct PageSessions: Sendable {
    let context: OAuthContext

    /// `__Host-mdr-session` (Secure, Path=/, no Domain), or `mdr-session` on the plain-http loopback
    /// demo. Not `mdr_…`: those name pending requests (`PendingRequests.cookiePrefix`).
    var cookieName: String { context.configuration.isLoopbackDemo ? "mdr-session" : "__Host-mdr-session" }

    private var lifetime: Int { context.configuration.lifetimes.connectionsSession.wholeSeconds }

    /// Opens a session for `userID`; returns the cookie that carries it.
    func create(userID: String) async throws(OAuthError) -> Cookie {
        let value = Base64URL.encode(SecureRandom.bytes(count: 32))
        let hash = context.hasher.hash(value).hash
        let now = context.now
        let session = PageSession(hash: hash, userID: userID, createdAt: now)
        guard
            try await context.put(
                OAuthKeys.pageSession(hash), session.attributes, expiresAt: now + lifetime, condition: .absent) != nil
        else { throw OAuthError(.serverError, "A session identifier collided.") }
        return cookie(value, maxAge: lifetime)
    }

    /// The cookie that deletes the session cookie.
    var expiredCookie: Cookie { cookie("", maxAge: 0) }

    private func cookie(_ value: String, maxAge: Int) -> Cookie {
        // Lax, not Strict: the session starts on Apple's redirect back (a cross-site navigation), and
        // a Strict cookie would not come along to the page it redirects to. Lax still keeps it off
        // every cross-site POST, and each form carries a CSRF token besides.
        Cookie(name: cookieName, value: value, maxAge: maxAge, secure: !context.configuration.isLoopbackDemo)
    }

    /// The live session this browser's cookie names; nil without the cookie, with a planted second
    /// copy of it, or when it is unknown or over.
    func current(_ request: Request) async throws(OAuthError) -> PageSession? {
        guard let value = request.cookie(cookieName), (1...64).contains(value.utf8.count),
            let (item, _) = try await context.find(context.hasher.candidates(value), key: OAuthKeys.pageSession),
            let session = PageSession(item: item), context.now - session.createdAt < lifetime
        else { return nil }
        return session
    }

    /// A fresh CSRF token for the page about to be shown (an older page's forms stop working), and
    /// how many connections the last form ended (shown once). nil when the session just ended.
    func showPage(_ session: PageSession) async throws(OAuthError) -> (csrf: String, ended: Int?)? {
        let csrf = Base64URL.encode(SecureRandom.bytes(count: 32))
        let update = ItemUpdate(set: ["csrf": .string(context.hasher.hash(csrf).hash)], remove: ["ended"])
        guard try await context.update(OAuthKeys.pageSession(session.hash), update, condition: .exists) != nil else {
            return nil
        }
        return (csrf, session.ended)
    }

    /// Spends the CSRF token a form carried: it must be the one of the page last shown, and one
    /// conditional write removes it, so exactly one copy of a form gets through.
    func spend(_ session: PageSession, csrf: String?) async throws(OAuthError) {
        guard let expected = session.csrfHash, let csrf,
            context.hasher.candidates(csrf).contains(where: { ConstantTime.equals($0, expected) })
        else { throw OAuthError(.bindingMismatch, "This page is out of date, or the form was not sent from it.") }
        let update = ItemUpdate(remove: ["csrf"])
        guard
            try await context.update(
                OAuthKeys.pageSession(session.hash), update, condition: .versionEquals(session.version)) != nil
        else { throw OAuthError(.alreadyUsed, "This form was already sent.") }
    }

    /// Remembers how many connections a form ended, for the page it redirects to.
    func noteEnded(_ session: PageSession, count: Int) async throws(OAuthError) {
        _ = try await context.update(
            OAuthKeys.pageSession(session.hash), ItemUpdate(set: ["ended": .int(count)]), condition: .exists)
    }

    /// Ends the session ("Sign out").
    func end(_ session: PageSession) async throws(OAuthError) {
        _ = try await context.delete(OAuthKeys.pageSession(session.hash))
    }
}
