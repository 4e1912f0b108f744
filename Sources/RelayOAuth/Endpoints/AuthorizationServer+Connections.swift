import RelayHTTP

/// The connections page (`/connections`): a pending request and Apple's confirmation first (the
/// same bridge, cookie and three-minute window as disconnect), then a short session bound to an
/// HttpOnly cookie in which the person sees their connections and ends one or all of them.
extension AuthorizationServer {
    /// `GET /connections`: the list when this browser holds a live session, else the form that
    /// confirms with Apple (and nothing about any connection).
    func connectionsPage(_ request: Request) async -> Response {
        let locale = Self.locale(request)
        do throws(OAuthError) {
            try await admitPage(request)
            if let session = try await sessions.current(request), let shown = try await sessions.showPage(session) {
                let list = try await connections.list(userID: session.userID)
                // Only grants `list` found to be this person's: never another person's counts.
                var recent: [String: [DayActivity]] = [:]
                for grant in list { recent[grant.id] = try await activity.recent(grantID: grant.id) }
                // A connection waiting for an iCloud sign-in gets a button, not a link: its link is made
                // when the person presses it (`action=sign-in`), so a view writes no `RECONNECT#` item.
                return pages.connections(list, activity: recent, csrf: shown.csrf, ended: shown.ended, locale: locale)
            }
            let created = try await pending.create(purpose: .connections, request: nil)
            var response = pages.connectionsConfirm(
                requestID: created.record.id, csrf: created.csrfToken, tab: created.tabNonce, locale: locale)
            response.setCookie(created.cookie)
            if request.cookies.contains(where: { $0.name == sessions.cookieName }) {
                // An ended, unknown or planted session cookie: the browser can forget it.
                response.setCookie(sessions.expiredCookie)
            }
            return response
        } catch {
            return pages.connectionsError(error, locale: locale)
        }
    }

    /// `POST /connections`: records the confirmation and goes to Apple's sign-in.
    func confirmConnections(_ request: Request) async -> Response {
        await confirmWithApple(request, purpose: .connections)
    }

    /// `POST /connections/end`: ends one connection (`action=end`, `grant=ID`), all of them
    /// (`action=end-all`), or the page's session (`action=sign-out`), then back to the page (303);
    /// or makes a waiting connection's single-use link to sign in to iCloud again and goes to it
    /// (`action=sign-in`, `grant=ID`, issue 39; back to the page, with nothing made, when the grant
    /// is not this person's or no longer waits). The session cookie, the page's single-use CSRF
    /// token and, when the browser says where the form came from (`Sec-Fetch-Site`), the same
    /// origin are all required; the grant must be the session's person's.
    func endConnections(_ request: Request) async -> Response {
        let locale = Self.locale(request)
        do throws(OAuthError) {
            if let site = request.headers["sec-fetch-site"], site != "same-origin" {
                throw OAuthError(.bindingMismatch, "This form was not sent from this page.")
            }
            let form = try Self.form(request)
            guard form.repeatedNames.isEmpty, let action = form["action"] else {
                throw OAuthError(.invalidRequest, "The form is incomplete.")
            }
            guard let session = try await sessions.current(request) else {
                throw OAuthError(.bindingMissing, "Confirm with Apple again to see your connections.")
            }
            let back = Self.pageRedirect(configuration.issuer + paths.connections, after: .post)
            switch action {
            case "end":
                guard let grantID = form["grant"] else { throw OAuthError(.invalidRequest, "The form is incomplete.") }
                try await sessions.spend(session, csrf: form["csrf"])
                let ended = try await connections.end(grantID: grantID, userID: session.userID)
                try await sessions.noteEnded(session, count: ended ? 1 : 0)
            case "sign-in":
                guard let grantID = form["grant"] else { throw OAuthError(.invalidRequest, "The form is incomplete.") }
                try await sessions.spend(session, csrf: form["csrf"])
                guard try await connections.waitsForSignIn(grantID: grantID, userID: session.userID) else { break }
                // One link per press (each press needs a fresh page and its token): the link goes to
                // this browser in the redirect only, never into the page or a log.
                return Self.pageRedirect(try await reconnections.link(grantID: grantID), after: .post)
            case "end-all":
                try await sessions.spend(session, csrf: form["csrf"])
                let count = try await connections.endAll(userID: session.userID)
                try await sessions.noteEnded(session, count: count)
            case "sign-out":
                try await sessions.spend(session, csrf: form["csrf"])
                try await sessions.end(session)
                var response = back
                response.setCookie(sessions.expiredCookie)
                return response
            default:
                throw OAuthError(.invalidRequest, "The form is incomplete.")
            }
            return back
        } catch {
            return pages.connectionsError(error, locale: locale)
        }
    }
}
