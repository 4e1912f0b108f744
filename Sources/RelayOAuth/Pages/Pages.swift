import Foundation
import RelayHTTP

/// The server-rendered pages: consent, errors, disconnect (and, in `Pages+Connections.swift`, the
/// connections page). Every value that came from a client or a request is escaped; the only
/// JavaScript is `TabBinding`'s, on the pages that start or finish an Apple sign-in.
struct Pages: Sendable {
    let configuration: OAuthConfiguration
    let paths: EndpointPaths

    /// The consent page for a validated request. When the app asks to read and more, the person
    /// chooses between that and reading only (a radio group, no script; `ScopeChoice`). "Continue
    /// with Apple" comes right after the choice, so a phone shows it without scrolling (issue 37,
    /// from issue 39); what to tick on Apple's page follows it, then how long the connection lives
    /// (issue 44: "until I end it" preselected, so the button sends a choice without a scroll, and
    /// a long app name still leaves the button on a phone's first screen), what is stored comes last.
    func consent(
        _ request: AuthorizationRequest, client: RegisteredClient, requestID: String, csrf: String, tab: String,
        locale: PageLocale
    ) -> Response {
        let text = PageText.of(locale)
        let identity = ClientIdentity.of(
            client, redirectURI: request.redirectURI, allowlist: configuration.redirectAllowlist)
        let host = ConnectionLabel.host(of: request.redirectURI)
        let hostHTML = "<span class=host>\(HTML.escape(host))</span>"
        // Who is asking. A verified name comes with its domain; a self-registered client leads
        // with where the person will be sent, and its claimed name only as a claim (issue 41).
        let who: String
        let button: String
        // A self-registered client's warning names its host in place of the generic one.
        var onlyIf = HTML.escape(text.onlyIfYouStarted)
        switch identity {
        case .verified(let verifiedName, let domain, let voucher):
            let name = Self.clientName(verifiedName, text: text)
            let domainHTML = "<span class=host>\(HTML.escape(domain))</span>"
            let tie = (voucher == .document ? text.describedBy : text.verifiedAt)
                .replacingOccurrences(of: voucher == .document ? "{host}" : "{domain}", with: domainHTML)
            if case .anyAccountsConnector(let path) = voucher {
                // The platform is real; whose connector it is, nobody here can tell (issue 41's
                // review: a verified badge alone let an attacker's own connector pass as the person's).
                let connector = "<span class=host>\(HTML.escape(domain + String(path.prefix(120))))</span>"
                who = """
                    <p>\(text.consentLead.replacingOccurrences(of: "{client}", with: name))</p>
                    <div class="card warning"><p><span class=verified>\(HTML.escape(text.verifiedPlatform))</span> \
                    \(text.anyAccountsConnector.replacingOccurrences(of: "{platform}", with: name))</p>
                    <p>\(HTML.escape(text.returnsTo)): \(connector)</p></div>
                    """
                onlyIf = text.onlyIfYouAddedIt.replacingOccurrences(of: "{platform}", with: name)
            } else {
                who = """
                    <p>\(text.consentLead.replacingOccurrences(of: "{client}", with: name))</p>
                    <div class=card><p><span class=verified>\(HTML.escape(text.verified))</span> \(tie)</p>
                    <p>\(HTML.escape(text.returnsTo)): \(hostHTML)</p></div>
                    """
            }
            button = HTML.escape(text.continueWithApple)
        case .selfRegistered(_, let claimed):
            // A name with hidden characters is shown as the unnamed-app text (`clientName`).
            let claim =
                claimed.map {
                    text.claimsName.replacingOccurrences(of: "{name}", with: Self.clientName($0, text: text))
                } ?? HTML.escape(text.noName)
            who = """
                <p class=lead>\(text.selfRegisteredLead.replacingOccurrences(of: "{host}", with: hostHTML))</p>
                <div class="card warning"><p><span class=unverified>\(HTML.escape(text.unverified))</span> \
                \(claim)</p></div>
                """
            button = text.continueAndReturn.replacingOccurrences(of: "{host}", with: hostHTML)
            onlyIf = text.onlyIfYouUse.replacingOccurrences(of: "{host}", with: hostHTML)
        }
        let choices = ScopeChoice.choices(for: request.scope)
        var access: String
        if choices.count > 1 {
            access = "<fieldset><legend>\(HTML.escape(text.chooseAccess))</legend>"
            for (index, choice) in choices.enumerated() {
                let title = Self.accessTitle(choice, text: text)
                let details =
                    choice == request.scope
                    ? "<ul>\(Self.abilities(choice, text: text))</ul>"
                    : "<p class=muted>\(HTML.escape(text.readOnlyNote))</p>"
                access += """
                    <label class=choice><input type=radio name=scope value="\(HTML.escape(choice.text))"\
                    \(index == 0 ? " checked" : "")><span><strong>\(HTML.escape(title))</strong>\(details)</span></label>
                    """
            }
            access += "</fieldset>"
        } else {
            access =
                "<div class=card><p>\(HTML.escape(text.canDo))</p><ul>\(Self.abilities(request.scope, text: text))</ul></div>"
        }
        let body = """
            <h1>\(HTML.escape(text.consentTitle))</h1>
            \(who)
            <form method=post action="\(HTML.escape(paths.consent))" data-tab="\(HTML.escape(tab))">
            <input type=hidden name=request value="\(HTML.escape(requestID))">
            <input type=hidden name=csrf value="\(HTML.escape(csrf))">
            \(access)
            <p><strong>\(onlyIf)</strong></p>
            <button class=primary name=action value=continue>\(button)</button>
            <p id=keep-signed-in>\(HTML.escape(text.keepSignedIn))</p>
            \(lifetimeChoice(locale: locale))
            <button class=secondary name=action value=cancel>\(HTML.escape(text.cancel))</button>
            </form>
            <p class=muted>\(HTML.escape(text.storedNote))</p>
            <p class=muted><a href="\(HTML.escape(paths.connections))">\(HTML.escape(text.seeConnections))</a></p>
            """
        let targets = configuration.signInOrigins + [PageLayout.source(of: request.redirectURI)].compactMap { $0 }
        return PageLayout.render(
            title: text.consentTitle, body: body, locale: locale, formTargets: targets, script: TabBinding.keepScript)
    }

    /// A client's name as a page shows it: escaped, isolated (`<bdi>`, so right-to-left text in it
    /// cannot reorder the sentence around it), and not at all when it breaks `DisplayText`'s rules
    /// (a name stored before them).
    static func clientName(_ name: String?, text: PageText) -> String {
        let shown = name.flatMap { DisplayText.isShowable($0) ? $0 : nil } ?? text.unverifiedName
        return "<bdi>\(HTML.escape(shown))</bdi>"
    }

    /// One `<li>` per thing a scope set allows.
    static func abilities(_ scope: ScopeSet, text: PageText) -> String {
        var items = ""
        if scope.tokens.contains("todos:read") { items += "<li>\(HTML.escape(text.scopeRead))</li>" }
        if scope.tokens.contains("todos:write") { items += "<li>\(HTML.escape(text.scopeWrite))</li>" }
        for other in scope.tokens where !["todos:read", "todos:write"].contains(other) {
            items += "<li><code>\(HTML.escape(other))</code></li>"
        }
        return items
    }

    /// A scope set in a few words: "Read and change your to-dos", "Only read your to-dos".
    static func accessTitle(_ scope: ScopeSet, text: PageText) -> String {
        switch scope.tokens {
        case ["todos:read", "todos:write"]: text.choiceFull
        case ["todos:read"]: text.choiceReadOnly
        default: text.choiceAsked
        }
    }

    /// A local error page. `back` is a link to the client with `access_denied` (only once the
    /// client's redirect URI was validated).
    func error(_ error: OAuthError, locale: PageLocale, back: String? = nil) -> Response {
        let text = PageText.of(locale)
        let (title, explanation) = text.problem(error.code)
        var body = "<h1>\(HTML.escape(title))</h1><p>\(HTML.escape(explanation))</p>"
        // The detail is written in English only: a Japanese page says everything in its own words.
        if let detail = error.detail, locale == .english { body += "<p class=muted>\(HTML.escape(detail))</p>" }
        if let back {
            body += "<a class=\"button secondary\" href=\"\(HTML.escape(back))\">\(HTML.escape(text.backToApp))</a>"
        }
        // A page never answers 401: that status needs a WWW-Authenticate challenge a browser cannot use.
        let status = error.status.code >= 400 && error.status.code != 401 ? error.status : .badRequest
        return PageLayout.render(title: title, body: body, locale: locale, status: status)
    }

    /// The disconnect page: what is stored, and the confirmation form.
    func disconnect(requestID: String, csrf: String, tab: String, locale: PageLocale) -> Response {
        let text = PageText.of(locale)
        let stored = text.disconnectStored.map { "<li>\(HTML.escape($0))</li>" }.joined()
        let body = """
            <h1>\(HTML.escape(text.disconnectTitle))</h1>
            <p>\(HTML.escape(text.disconnectLead))</p>
            <div class=card><ul>\(stored)</ul></div>
            <p>\(HTML.escape(text.disconnectHow))</p>
            <form method=post action="\(HTML.escape(paths.disconnect))" data-tab="\(HTML.escape(tab))">
            <input type=hidden name=request value="\(HTML.escape(requestID))">
            <input type=hidden name=csrf value="\(HTML.escape(csrf))">
            <button class=primary>\(HTML.escape(text.confirmWithApple))</button>
            </form>
            <p class=muted><a href="\(HTML.escape(paths.connections))">\(HTML.escape(text.seeConnections))</a></p>
            """
        return PageLayout.render(
            title: text.disconnectTitle, body: body, locale: locale, formTargets: configuration.signInOrigins,
            script: TabBinding.keepScript, isolated: true)
    }

    /// What Apple's callback URL shows: a moment's "finishing" while `TabBinding.finishScript`
    /// takes the token out of the address bar and POSTs it with this tab's nonce. Nothing is
    /// stored until that POST.
    func callbackBridge(locale: PageLocale) -> Response {
        let text = PageText.of(locale)
        let body = """
            <h1>\(HTML.escape(text.finishingTitle))</h1>
            \(TabBinding.finishForm(action: paths.callback, noScript: text.needsScript))
            """
        return PageLayout.render(
            title: text.finishingTitle, body: body, locale: locale, formTargets: nil, script: TabBinding.finishScript)
    }

    /// After a confirmed disconnect.
    func disconnected(count: Int, locale: PageLocale) -> Response {
        let text = PageText.of(locale)
        let message =
            switch count {
            case 0: text.nothingToDisconnect
            case 1: text.disconnectedOne
            default: text.disconnected.replacingOccurrences(of: "{count}", with: String(count))
            }
        let body = "<h1>\(HTML.escape(text.disconnectedTitle))</h1><p>\(HTML.escape(message))</p>"
        return PageLayout.render(title: text.disconnectedTitle, body: body, locale: locale)
    }
}
