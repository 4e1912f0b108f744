import RelayHTTP

extension Pages {
    /// What an unknown path answers (issue 39): a page in the browser's language when `Accept`
    /// prefers HTML (a person who followed a stale or mistyped link), the JSON 404 otherwise (a
    /// machine client parses it).
    func notFound(_ request: Request) -> Response {
        guard AcceptPreference.prefersHTML(request) else { return HTTPError(.notFound).response() }
        let locale = PageLocale(acceptLanguage: request.headers["accept-language"])
        let text = PageText.of(locale)
        let (title, explanation) =
            locale == .japanese
            ? ("ページが見つかりません", "このアドレスにはページがありません。AI アプリから来た場合は、アプリに戻ってもう一度やり直してください。")
            : (
                "Page not found",
                "There is no page at this address. If you came from your AI app, go back to it and start again."
            )
        let body = """
            <h1>\(HTML.escape(title))</h1><p>\(HTML.escape(explanation))</p>\
            <p class=muted><a href="\(HTML.escape(paths.connections))">\(HTML.escape(text.seeConnections))</a></p>
            """
        return PageLayout.render(title: title, body: body, locale: locale, status: .notFound)
    }
}
