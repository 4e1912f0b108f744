import Foundation
import RelayHTTP

/// The connections page: before Apple confirms, only what it is for and the confirming form;
/// afterwards the person's connections, each with its own "End" form (and, when it waits for an
/// iCloud sign-in, a "Sign in to iCloud again" form), "End all", and "Sign out". Every form
/// carries the page's single-use CSRF token.
extension Pages {
    /// The session's length in whole minutes, as the pages say it.
    private var sessionMinutes: String { String(max(1, configuration.lifetimes.connectionsSession.wholeSeconds / 60)) }

    /// Before Apple confirms: nothing about any connection, only the form that goes to Apple.
    func connectionsConfirm(requestID: String, csrf: String, tab: String, locale: PageLocale) -> Response {
        let text = ConnectionsText.of(locale)
        let body = """
            <h1>\(HTML.escape(text.title))</h1>
            <p>\(HTML.escape(text.lead))</p>
            <p>\(HTML.escape(text.how.replacingOccurrences(of: "{minutes}", with: sessionMinutes)))</p>
            <form method=post action="\(HTML.escape(paths.connections))" data-tab="\(HTML.escape(tab))">
            <input type=hidden name=request value="\(HTML.escape(requestID))">
            <input type=hidden name=csrf value="\(HTML.escape(csrf))">
            <button class=primary>\(HTML.escape(PageText.of(locale).confirmWithApple))</button>
            </form>
            <p class=muted><a href="\(HTML.escape(paths.disconnect))">\(HTML.escape(text.disconnectInstead))</a></p>
            """
        return PageLayout.render(
            title: text.title, body: body, locale: locale, formTargets: configuration.signInOrigins,
            script: TabBinding.keepScript, isolated: true)
    }

    /// The person's connections, newest first. `ended` is what the last form ended (shown once).
    /// `activity`: each grant's recent days (issue 44), by grant ID. A connection that waits for an
    /// iCloud sign-in (issue 39) gets a button that makes its link when pressed: showing the page
    /// makes none.
    func connections(
        _ grants: [GrantRecord], activity: [String: [DayActivity]] = [:], csrf: String, ended: Int?,
        locale: PageLocale
    ) -> Response {
        let text = ConnectionsText.of(locale)
        var body = "<h1>\(HTML.escape(text.title))</h1>"
        if let ended {
            let notice =
                switch ended {
                case 0: text.endedNone
                case 1: text.endedOne
                default: text.endedMany.replacingOccurrences(of: "{count}", with: String(ended))
                }
            body += "<p class=\"card notice\" role=status>\(HTML.escape(notice))</p>"
        }
        let count =
            switch grants.count {
            case 0: text.countNone
            case 1: text.countOne
            default: text.countMany.replacingOccurrences(of: "{count}", with: String(grants.count))
            }
        body += "<p>\(HTML.escape(count))</p>"
        for grant in grants {
            body += row(grant, activity: activity[grant.id] ?? [], csrf: csrf, locale: locale)
        }
        if !grants.isEmpty { body += endForm(csrf: csrf, action: "end-all", label: text.endAll, style: "danger") }
        body += endForm(csrf: csrf, action: "sign-out", label: text.signOut, style: "secondary")
        body += """
            <p class=muted>\(HTML.escape(text.staysOpen.replacingOccurrences(of: "{minutes}", with: sessionMinutes))) \
            \(HTML.escape(text.utcDates))</p>
            """
        return PageLayout.render(title: text.title, body: body, locale: locale)
    }

    /// A failure of the connections page, with the way back to it: the session is over, or the page
    /// is out of date (another tab, a form sent twice); anything else as the other pages say it.
    func connectionsError(_ error: OAuthError, locale: PageLocale) -> Response {
        let text = ConnectionsText.of(locale)
        let (title, explanation): (String, String) =
            switch error.code {
            case .bindingMissing:
                (text.sessionEndedTitle, text.sessionEnded.replacingOccurrences(of: "{minutes}", with: sessionMinutes))
            case .bindingMismatch, .alreadyUsed: (text.staleTitle, text.stale)
            default: PageText.of(locale).problem(error.code)
            }
        let body = """
            <h1>\(HTML.escape(title))</h1><p>\(HTML.escape(explanation))</p>
            <a class="button secondary" href="\(HTML.escape(paths.connections))">\(HTML.escape(text.openAgain))</a>
            """
        let status = error.status.code >= 400 && error.status.code != 401 ? error.status : .badRequest
        return PageLayout.render(title: title, body: body, locale: locale, status: status)
    }

    private func row(_ grant: GrantRecord, activity: [DayActivity], csrf: String, locale: PageLocale) -> String {
        let text = ConnectionsText.of(locale)
        let pageText = PageText.of(locale)
        var heading = Self.clientName(grant.label?.clientName, text: pageText)
        var origin = ""
        switch grant.label?.source {
        case .registration: heading += " <span class=tag>\(HTML.escape(text.unverified))</span>"
        case .metadataDocument:
            if case .success(let uri) = ParsedURI.parse(grant.clientID) {
                let host = "<span class=host>\(HTML.escape(uri.host))</span>"
                origin = "<p class=muted>\(pageText.describedBy.replacingOccurrences(of: "{host}", with: host))</p>"
            }
        case nil: break
        }
        let used = grant.lastUsedDay.map { PageDate.format(day: $0, locale: locale) } ?? text.notYet
        let connected = PageDate.format(day: UsageRecorder.day(grant.createdAt), locale: locale)
        return """
            <section class=card><h2>\(heading)</h2>\(origin)
            <p>\(HTML.escape(text.returnsTo)): <span class=host>\(HTML.escape(grant.label?.redirectHost ?? "-"))</span></p>
            <p>\(HTML.escape(text.mayDo)): \(HTML.escape(Self.access(grant.scope, text: pageText)))</p>
            <p class=muted>\(HTML.escape(text.connected)): \(HTML.escape(connected)) · \
            \(HTML.escape(text.lastUsed)): \(HTML.escape(used))</p>
            \(signInForm(grant, csrf: csrf, locale: locale))
            \(lifetimeLine(grant, locale: locale))
            \(activitySummary(activity, locale: locale))
            <form method=post action="\(HTML.escape(paths.connectionsEnd))">
            <input type=hidden name=csrf value="\(HTML.escape(csrf))">
            <input type=hidden name=grant value="\(HTML.escape(grant.id))">
            <button class=secondary name=action value=end>\(HTML.escape(text.end))</button>
            </form></section>
            """
    }

    /// "Needs iCloud sign-in" and the button that makes the link and goes to it (`action=sign-in`), for
    /// a connection whose CloudKit token died (issue 39). A form, not a link: a link would be a new
    /// live capability (and a store item) on every view of the page.
    private func signInForm(_ grant: GrantRecord, csrf: String, locale: PageLocale) -> String {
        guard grant.signInSince != nil else { return "" }
        let text = ReconnectText.of(locale)
        return """
            <form method=post action="\(HTML.escape(paths.connectionsEnd))">
            <p class=notice><strong>\(HTML.escape(text.waiting))</strong></p>
            <input type=hidden name=csrf value="\(HTML.escape(csrf))">
            <input type=hidden name=grant value="\(HTML.escape(grant.id))">
            <button class=primary name=action value=sign-in>\(HTML.escape(text.signInAgain))</button>
            </form>
            """
    }

    /// What a connection may do, in a few words, or its scopes when they are not the usual two.
    private static func access(_ scope: ScopeSet, text: PageText) -> String {
        switch scope.tokens {
        case ["todos:read", "todos:write"]: text.choiceFull
        case ["todos:read"]: text.choiceReadOnly
        default: scope.text
        }
    }

    private func endForm(csrf: String, action: String, label: String, style: String) -> String {
        """
        <form method=post action="\(HTML.escape(paths.connectionsEnd))">
        <input type=hidden name=csrf value="\(HTML.escape(csrf))">
        <button class=\(style) name=action value=\(action)>\(HTML.escape(label))</button>
        </form>
        """
    }
}
