import Foundation
import RelayHTTP

/// The server-rendered pages: consent, errors, disconnect. Every value that came from a client
/// or a request is escaped; no page has JavaScript.
struct Pages: Sendable {
    let configuration: OAuthConfiguration
    let paths: EndpointPaths

    /// The consent page for a validated request.
    func consent(
        _ request: AuthorizationRequest, client: RegisteredClient, requestID: String, csrf: String, locale: PageLocale
    ) -> Response {
        let text = PageText.of(locale)
        // A name stored before `DisplayText`'s rules is not shown at all if it breaks them, and any name
        // is isolated (`<bdi>`), so right-to-left text in it cannot reorder the sentence around it.
        let shown = client.name.flatMap { DisplayText.isShowable($0) ? $0 : nil } ?? text.unverifiedName
        let name = "<bdi>\(HTML.escape(shown))</bdi>"
        var origin = text.registeredBy
        if client.source == .metadataDocument, case .success(let uri) = ParsedURI.parse(client.id) {
            origin = text.describedBy.replacingOccurrences(
                of: "{host}", with: "<span class=host>\(HTML.escape(uri.host))</span>")
        }
        let host: String
        if case .success(let uri) = ParsedURI.parse(request.redirectURI) {
            host =
                uri.scheme == "https" || uri.scheme == "http"
                ? uri.host + (uri.port.map { ":\($0)" } ?? "") : uri.scheme + "://" + uri.host
        } else {
            host = request.redirectURI
        }
        var abilities = ""
        if request.scope.tokens.contains("todos:read") { abilities += "<li>\(HTML.escape(text.scopeRead))</li>" }
        if request.scope.tokens.contains("todos:write") { abilities += "<li>\(HTML.escape(text.scopeWrite))</li>" }
        for other in request.scope.tokens where !["todos:read", "todos:write"].contains(other) {
            abilities += "<li><code>\(HTML.escape(other))</code></li>"
        }
        let body = """
            <h1>\(HTML.escape(text.consentTitle))</h1>
            <p>\(text.consentLead.replacingOccurrences(of: "{client}", with: name))</p>
            <div class=card><p class=muted>\(origin)</p>
            <p>\(HTML.escape(text.returnsTo)): <span class=host>\(HTML.escape(host))</span></p>
            <p>\(HTML.escape(text.canDo))</p><ul>\(abilities)</ul></div>
            <p class=muted>\(HTML.escape(text.storedNote))</p>
            <p id=keep-signed-in>\(HTML.escape(text.keepSignedIn))</p>
            <p><strong>\(HTML.escape(text.onlyIfYouStarted))</strong></p>
            <form method=post action="\(HTML.escape(paths.consent))">
            <input type=hidden name=request value="\(HTML.escape(requestID))">
            <input type=hidden name=csrf value="\(HTML.escape(csrf))">
            <button class=primary name=action value=continue>\(HTML.escape(text.continueWithApple))</button>
            <button class=secondary name=action value=cancel>\(HTML.escape(text.cancel))</button>
            </form>
            """
        let targets = configuration.signInOrigins + [PageLayout.source(of: request.redirectURI)].compactMap { $0 }
        return PageLayout.render(title: text.consentTitle, body: body, locale: locale, formTargets: targets)
    }

    /// A local error page. `back` is a link to the client with `access_denied` (only once the
    /// client's redirect URI was validated).
    func error(_ error: OAuthError, locale: PageLocale, back: String? = nil) -> Response {
        let text = PageText.of(locale)
        let (title, explanation) = text.problem(error.code)
        var body = "<h1>\(HTML.escape(title))</h1><p>\(HTML.escape(explanation))</p>"
        if let detail = error.detail { body += "<p class=muted>\(HTML.escape(detail))</p>" }
        if let back {
            body += "<a class=\"button secondary\" href=\"\(HTML.escape(back))\">\(HTML.escape(text.backToApp))</a>"
        }
        // A page never answers 401: that status needs a WWW-Authenticate challenge a browser cannot use.
        let status = error.status.code >= 400 && error.status.code != 401 ? error.status : .badRequest
        return PageLayout.render(title: title, body: body, locale: locale, status: status)
    }

    /// The disconnect page: what is stored, and the confirmation form.
    func disconnect(requestID: String, csrf: String, locale: PageLocale) -> Response {
        let text = PageText.of(locale)
        let stored = text.disconnectStored.map { "<li>\(HTML.escape($0))</li>" }.joined()
        let body = """
            <h1>\(HTML.escape(text.disconnectTitle))</h1>
            <p>\(HTML.escape(text.disconnectLead))</p>
            <div class=card><ul>\(stored)</ul></div>
            <p>\(HTML.escape(text.disconnectHow))</p>
            <form method=post action="\(HTML.escape(paths.disconnect))">
            <input type=hidden name=request value="\(HTML.escape(requestID))">
            <input type=hidden name=csrf value="\(HTML.escape(csrf))">
            <button class=primary>\(HTML.escape(text.confirmWithApple))</button>
            </form>
            """
        return PageLayout.render(
            title: text.disconnectTitle, body: body, locale: locale, formTargets: configuration.signInOrigins)
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
