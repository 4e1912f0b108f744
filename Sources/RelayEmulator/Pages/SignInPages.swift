import RelayHTTP

/// The fake Apple sign-in: `redirectURL` opens a form where any Apple ID signs in (no password
/// is checked); the browser then goes to the configured callback with `ckWebAuthToken` and
/// `ckSession`, as Apple's `ckauth.js` sends them.
enum SignInPages {
    static let formPath = "/IDMSWebAuth/auth"
    static let submitPath = "/IDMSWebAuth/signin"

    static func register(on router: inout Router, state: EmulatorState) {
        router.get(formPath) { request in
            let link = try? request.query()["oauth_token"]
            let valid = state.update(changed: false) { world, now in world.isPendingSignIn(link, now: now) }
            guard valid, let link else { return expired() }
            return .html(SignInHTML.form(link: link, container: state.configuration.container, error: nil))
        }
        router.post(submitPath) { request in
            let form = try request.formBody()
            let link = form["oauth_token"]
            let appleID = form["appleID"] ?? ""
            let keep = form["keepSignedIn"] != nil
            let zoneName = state.configuration.zoneAtSignIn
            let outcome = state.update { world, now in
                world.signIn(link: link, appleID: appleID, keepSignedIn: keep, zoneName: zoneName, now: now)
            }
            switch outcome {
            case .signedIn(let token):
                return signedIn(token: token, state: state)
            case .expiredLink:
                return expired()
            case .missingAppleID:
                let page = SignInHTML.form(
                    link: link ?? "", container: state.configuration.container, error: "Enter an Apple ID.")
                return .html(page, status: .badRequest)
            case .advancedDataProtection:
                return .html(SignInHTML.failure(title: "Authentication Error", status: 13, code: "CKAUTHunknownError"))
            case .webAccessOff:
                return .html(
                    SignInHTML.failure(title: "iCloud Data Web Access is Off", status: 12, code: "CKAUTHwebAccessOff"))
            }
        }
    }

    private static func signedIn(token: String, state: EmulatorState) -> Response {
        let (callbackURL, raw) = state.update(changed: false) { world, _ in
            (world.callbackURL, world.settings.callbackEncoding == "raw")
        }
        guard let callback = callbackURL else { return .html(SignInHTML.token(token)) }
        let value = raw ? token : FormDecoding.encode(token)
        let separator = callback.contains("?") ? "&" : "?"
        return .redirect(to: "\(callback)\(separator)ckWebAuthToken=\(value)&ckSession=\(value)")
    }

    private static func expired() -> Response {
        .html(
            SignInHTML.failure(title: "This sign-in link has expired", status: nil, code: "CKAUTHexpired"),
            status: .badRequest)
    }
}

/// The pages' HTML: plain, no JavaScript, readable on a phone.
enum SignInHTML {
    static func form(link: String, container: String?, error: String?) -> String {
        let errorHTML = error.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? ""
        let containerHTML = container.map { "<p class=\"muted\">Container: \(HTML.escape($0))</p>" } ?? ""
        return page(
            title: "Sign in with your Apple ID",
            body: """
                <h1>Sign in with your Apple ID</h1>
                <p class="muted">Local CloudKit emulator: any Apple ID works and no password is checked.</p>
                \(containerHTML)
                \(errorHTML)
                <form method="post" action="\(SignInPages.submitPath)">
                <input type="hidden" name="oauth_token" value="\(HTML.escape(link))">
                <label for="appleID">Apple ID</label>
                <input id="appleID" name="appleID" type="email" autocomplete="username" required autofocus
                 placeholder="alice@example.com">
                <label for="password">Password</label>
                <input id="password" name="password" type="password" autocomplete="current-password">
                <label class="check"><input type="checkbox" name="keepSignedIn" value="1"> Keep me signed in</label>
                <button type="submit">Sign In</button>
                </form>
                """)
    }

    static func failure(title: String, status: Int?, code: String) -> String {
        let statusAttribute = status.map { " data-status=\"\($0)\"" } ?? ""
        return page(
            title: title,
            body: """
                <h1 id="ck-error" data-code="\(code)"\(statusAttribute)>\(HTML.escape(title))</h1>
                <p class="muted">You can close this window.</p>
                """)
    }

    static func token(_ token: String) -> String {
        page(
            title: "Signed in",
            body: """
                <h1>Signed in</h1>
                <p>No callback URL is configured. The web auth token:</p>
                <pre id="ckWebAuthToken">\(HTML.escape(token))</pre>
                """)
    }

    private static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTML.escape(title)) — CloudKit emulator</title>
        <style>
        body{font-family:-apple-system,system-ui,sans-serif;max-width:26rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
        label{display:block;margin-top:1rem;font-weight:600}
        input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.6rem;font-size:1rem;
        border:1px solid #aaa;border-radius:.5rem}
        .check{font-weight:400}
        button{margin-top:1.5rem;width:100%;padding:.7rem;font-size:1rem;border:0;border-radius:.5rem;background:#0071e3;color:#fff}
        .muted{color:#6e6e73}.error{color:#b00020}pre{white-space:pre-wrap;word-break:break-all}
        </style></head>
        <body>
        \(body)
        </body></html>
        """
    }
}
