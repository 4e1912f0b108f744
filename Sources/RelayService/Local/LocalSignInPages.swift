import RelayHTTP
import RelayOAuth

/// The few pages the local sign-in listener shows, in English and Japanese on the same page (the person's
/// language is not known here). Each names a fixed result; nothing from the request is ever echoed.
enum LocalSignInPages {
    /// A result the `/mustdo/done` page can show (its `result` parameter).
    enum Result: String, CaseIterable {
        case signedIn = "signed-in"
        case notStartedHere = "not-started-here"
        case wrongTab = "wrong-tab"
        case alreadyOpened = "already-opened"
        case noToken = "no-token"
        case refused
        case unsupported
        case notSaved = "not-saved"
        case expired
        case wrongHost = "wrong-host"
        case unknown

        var title: (english: String, japanese: String) {
            switch self {
            case .signedIn: ("Signed in to iCloud", "iCloudにサインインしました")
            case .notStartedHere:
                ("This sign-in did not start here", "このサインインはここで始まったものではありません")
            case .wrongTab:
                ("This tab did not start this sign-in", "このタブで始めたサインインではありません")
            case .alreadyOpened:
                ("This sign-in link was already opened", "このサインインのリンクはすでに開かれています")
            case .noToken: ("Apple sent no sign-in", "Appleからサインイン情報が届きませんでした")
            case .refused: ("Apple did not accept the sign-in", "Appleがサインインを受け付けませんでした")
            case .unsupported:
                ("This Apple account cannot be used on the web", "このApple Accountはウェブから使えません")
            case .notSaved: ("The sign-in could not be saved", "サインインを保存できませんでした")
            case .expired: ("This sign-in link has expired", "このサインインのリンクは期限切れです")
            case .wrongHost: ("Open the link exactly as given", "リンクをそのまま開いてください")
            case .unknown: ("Nothing here", "ここには何もありません")
            }
        }

        var advice: (english: String, japanese: String) {
            switch self {
            case .signedIn:
                ("You can close this window and go back to your AI app.", "このウィンドウを閉じて、AIアプリに戻ってください。")
            case .wrongTab:
                (
                    "Nothing was saved. Apple's sign-in came back in a tab or window other than the one that opened "
                        + "the sign-in link. If you started a sign-in, finish it in that tab; otherwise close this one.",
                    "何も保存していません。Appleのサインインが、サインインのリンクを開いたのとは別のタブやウィンドウに戻ってきました。"
                        + "サインインを始めた場合はそのタブで完了してください。心当たりがなければ、このタブを閉じてください。"
                )
            case .alreadyOpened:
                (
                    "Nothing was saved. A sign-in link works once, in the browser that opens it first. Finish in "
                        + "that tab, or ask your AI app to sign in again (the sign_in tool), or run: "
                        + "mustdo-relay local sign-in",
                    "何も保存していません。サインインのリンクは、最初に開いたブラウザで一度だけ使えます。そのタブで完了するか、"
                        + "AIアプリにもう一度サインインを頼むか(sign_in ツール)、mustdo-relay local sign-in を実行してください。"
                )
            case .unsupported:
                (
                    "Advanced Data Protection is on, or “Access iCloud Data on the Web” is off, in this account's "
                        + "iCloud settings.",
                    "このアカウントでは「高度なデータ保護」がオンか、「ウェブ上のiCloudデータにアクセス」がオフです。"
                )
            default:
                (
                    "Ask your AI app to sign in again (the sign_in tool), or run: mustdo-relay local sign-in",
                    "AIアプリにもう一度サインインを頼むか(sign_in ツール)、mustdo-relay local sign-in を実行してください。"
                )
            }
        }
    }

    /// A page with `status` for `result`.
    static func page(_ status: HTTPStatus, _ result: Result) -> Response {
        let (title, titleJA) = result.title
        let (advice, adviceJA) = result.advice
        return document(
            title: title,
            body: """
                <h1 id="result" data-result="\(result.rawValue)">\(HTML.escape(title))</h1>
                <p>\(HTML.escape(advice))</p>
                <h2 lang="ja">\(HTML.escape(titleJA))</h2>
                <p lang="ja">\(HTML.escape(adviceJA))</p>
                """, status: status)
    }

    /// The start page: keeps the attempt's tab nonce in this tab's `sessionStorage`, then goes on to
    /// Apple's sign-in (`TabBinding.keepAndGoScript`). Isolated from any opener, so a site that opened the
    /// link cannot steer the tab afterwards.
    static func start(tab: String, appleURL: String) -> Response {
        var response = document(
            title: "Opening Apple's sign-in",
            body: """
                <h1 id="go" data-tab="\(HTML.escape(tab))" data-next="\(HTML.escape(appleURL))">Opening Apple's sign-in…</h1>
                <h2 lang="ja">Appleのサインインを開いています…</h2>
                <noscript><p>This page needs JavaScript to finish the sign-in in this tab.</p>
                <p lang="ja">このタブでサインインを完了するには JavaScript が必要です。</p></noscript>
                """, status: .ok, script: TabBinding.keepAndGoScript)
        response.headers.set("Cross-Origin-Opener-Policy", "same-origin")
        return response
    }

    /// What the callback URL shows: the script POSTs the query with this tab's nonce
    /// (`TabBinding.finishScript`); nothing is stored before that POST.
    static func finishing() -> Response {
        document(
            title: "Finishing the sign-in",
            body: """
                <h1>Finishing the sign-in…</h1>
                <h2 lang="ja">サインインを完了しています…</h2>
                \(TabBinding.finishForm(
                    action: LocalSignIn.callbackPath,
                    noScript: "This page needs JavaScript to finish the sign-in. / サインインを完了するには JavaScript が必要です。"))
                """, status: .ok, script: TabBinding.finishScript)
    }

    /// A page around `body`, with `script` (one of `TabBinding`'s, allowed by its hash) at its end.
    private static func document(title: String, body: String, status: HTTPStatus, script: String? = nil) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>\(HTML.escape(title)) — MustDo</title></head>
            <body>
            \(body)
            \(script.map { "<script>\($0)</script>" } ?? "")</body></html>
            """
        return secured(.html(html, status: status), script: script)
    }

    /// 303 to the clean page showing `result` (so the callback's token leaves the address bar).
    static func redirect(_ result: Result) -> Response {
        secured(.redirect(to: LocalSignIn.donePath + "?result=" + result.rawValue, status: .seeOther))
    }

    /// `/mustdo/done?result=…`.
    static func done(_ request: Request) -> Response {
        let name = (try? request.query()["result"]) ?? ""
        let result = Result(rawValue: name) ?? .unknown
        return page(result == .signedIn ? .ok : result == .unknown ? .notFound : .badRequest, result)
    }

    /// No caching, no referrer (the Apple link and the callback carry secrets), no framing, no script but
    /// `script` (by its hash), forms only to this origin.
    static func secured(_ response: Response, script: String? = nil) -> Response {
        var response = response
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("Referrer-Policy", "no-referrer")
        response.headers.set("X-Frame-Options", "DENY")
        let scripts = script.map { "; script-src \(TabBinding.hash($0)); form-action 'self'" } ?? ""
        response.headers.set("Content-Security-Policy", "default-src 'none'\(scripts); frame-ancestors 'none'")
        return response
    }
}
