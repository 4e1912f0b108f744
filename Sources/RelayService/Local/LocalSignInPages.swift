import RelayHTTP

/// The few pages the local sign-in listener shows, in English and Japanese on the same page (the person's
/// language is not known here). Each names a fixed result; nothing from the request is ever echoed.
enum LocalSignInPages {
    /// A result the `/mustdo/done` page can show (its `result` parameter).
    enum Result: String, CaseIterable {
        case signedIn = "signed-in"
        case notStartedHere = "not-started-here"
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
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTML.escape(title)) — MustDo</title></head>
            <body>
            <h1 id="result" data-result="\(result.rawValue)">\(HTML.escape(title))</h1>
            <p>\(HTML.escape(advice))</p>
            <h2 lang="ja">\(HTML.escape(titleJA))</h2>
            <p lang="ja">\(HTML.escape(adviceJA))</p>
            </body></html>
            """
        return secured(.html(html, status: status))
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

    /// No caching, no referrer (the Apple link and the callback carry secrets), no framing, no scripts.
    static func secured(_ response: Response) -> Response {
        var response = response
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("Referrer-Policy", "no-referrer")
        response.headers.set("X-Frame-Options", "DENY")
        response.headers.set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
        return response
    }
}
