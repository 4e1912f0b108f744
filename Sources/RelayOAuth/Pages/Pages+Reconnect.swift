import RelayHTTP

extension Pages {
    /// The page a sign-in link opens (`Reconnections`): which connection, and the form that goes to
    /// Apple's sign-in from this tab (`TabBinding`, as consent).
    func reconnect(
        requestID: String, csrf: String, tab: String, label: ConnectionLabel?, locale: PageLocale
    ) -> Response {
        let text = ReconnectText.of(locale)
        let app = label.map {
            "<p>\(HTML.escape(text.app.replacingOccurrences(of: "{host}", with: $0.redirectHost)))</p>"
        }
        let body = """
            <h1>\(HTML.escape(text.title))</h1>
            <p>\(HTML.escape(text.lead))</p>
            \(app ?? "")
            <p>\(HTML.escape(text.sameAccount))</p>
            <form method=post action="\(HTML.escape(Reconnections.path))" data-tab="\(HTML.escape(tab))">
            <input type=hidden name=request value="\(HTML.escape(requestID))">
            <input type=hidden name=csrf value="\(HTML.escape(csrf))">
            <button class=primary>\(HTML.escape(PageText.of(locale).continueWithApple))</button>
            </form>
            """
        return PageLayout.render(
            title: text.title, body: body, locale: locale, formTargets: configuration.signInOrigins,
            script: TabBinding.keepScript, isolated: true)
    }

    /// After a sign-in that brought a connection back.
    func reconnected(locale: PageLocale) -> Response {
        let text = ReconnectText.of(locale)
        let body = "<h1>\(HTML.escape(text.doneTitle))</h1><p>\(HTML.escape(text.done))</p>"
        return PageLayout.render(title: text.doneTitle, body: body, locale: locale)
    }

    /// A link that was used, expired or names a connection that no longer waits.
    func reconnectUnusable(locale: PageLocale) -> Response {
        let text = ReconnectText.of(locale)
        let body = "<h1>\(HTML.escape(text.usedTitle))</h1><p>\(HTML.escape(text.used))</p>"
        return PageLayout.render(title: text.usedTitle, body: body, locale: locale, status: .gone)
    }
}
