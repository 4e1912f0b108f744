/// Every sentence the pages show, in English and Japanese. Placeholders are filled with escaped
/// values by the page that uses them.
struct PageText: Sendable {
    var locale: PageLocale
    var consentTitle: String
    var consentLead: String  // {client}
    var registeredBy: String
    var describedBy: String  // {host}
    /// The consent page's identity lines (issue 41, `ClientIdentity`).
    var verified: String
    var verifiedAt: String  // {domain}
    var verifiedPlatform: String
    var anyAccountsConnector: String  // {platform}, HTML
    var onlyIfYouAddedIt: String  // {platform}, HTML
    var unverified: String
    var claimsName: String  // {name}
    var noName: String
    var selfRegisteredLead: String  // {host}
    var onlyIfYouUse: String  // {host}
    var continueAndReturn: String  // {host}
    var unverifiedName: String
    var returnsTo: String
    var canDo: String
    var scopeRead: String
    var scopeWrite: String
    /// The consent page's choice (when the app asks to read and more).
    var chooseAccess: String
    var choiceFull: String
    var choiceAsked: String
    var choiceReadOnly: String
    var readOnlyNote: String
    /// The link to the connections page (consent footer, disconnect page).
    var seeConnections: String
    var storedNote: String
    /// Apple ends a web sign-in after 30 minutes, or two weeks with "Keep me signed in" (CloudKit Web Services
    /// Reference, "Composing Web Service Requests"); whether each call extends it is not documented.
    var keepSignedIn: String
    var onlyIfYouStarted: String
    var continueWithApple: String
    var cancel: String
    var errorTitle: String
    var backToApp: String
    var startAgain: String
    var disconnectTitle: String
    var disconnectLead: String
    var disconnectStored: [String]
    var disconnectHow: String
    var confirmWithApple: String
    var disconnectedTitle: String
    var disconnected: String  // {count}, more than one
    var disconnectedOne: String
    var nothingToDisconnect: String
    /// Apple's callback page while it sends the sign-in on (`TabBinding`).
    var finishingTitle: String
    var needsScript: String

    static func of(_ locale: PageLocale) -> PageText { locale == .japanese ? japanese : english }

    /// The title and explanation of an error page for each code.
    func problem(_ code: OAuthError.Code) -> (String, String) {
        switch (locale == .japanese, code) {
        case (_, .otherAccount):
            (ReconnectText.of(locale).otherAccountTitle, ReconnectText.of(locale).otherAccount)
        case (false, .accountUnsupported):
            (
                "This Apple account can't be connected",
                "iCloud web access is not available for this account. This happens when Advanced Data Protection is on, or when \"Access iCloud Data on the Web\" is turned off in iCloud settings. Turn web access on, then start again from your AI app."
            )
        case (true, .accountUnsupported):
            (
                "この Apple アカウントは接続できません",
                "このアカウントでは iCloud の Web アクセスが使えません。「高度なデータ保護」がオンの場合や、iCloud 設定の「Web 上の iCloud データにアクセス」がオフの場合に起こります。Web アクセスをオンにしてから、AI アプリでもう一度やり直してください。"
            )
        case (false, .consentExpired):
            (
                "This sign-in has expired",
                "More than a few minutes passed since you pressed Continue, or the request is too old. Start again from your AI app."
            )
        case (true, .consentExpired):
            ("このサインインは期限切れです", "「続ける」を押してから時間が経ちすぎたか、リクエストが古くなっています。AI アプリでもう一度やり直してください。")
        case (false, .alreadyUsed):
            (
                "This sign-in was already completed",
                "This page was already used. If your AI app is not connected, start again from the app."
            )
        case (true, .alreadyUsed):
            ("このサインインは完了済みです", "このページはすでに使われました。AI アプリが接続されていない場合は、アプリでもう一度やり直してください。")
        case (false, .bindingMissing), (false, .bindingMismatch):
            (
                "This browser didn't start this sign-in",
                "Finish the sign-in in the same browser where you pressed Continue, or start again from your AI app."
            )
        case (true, .bindingMissing), (true, .bindingMismatch):
            ("このブラウザで始めたサインインではありません", "「続ける」を押したのと同じブラウザでサインインを完了するか、AI アプリでもう一度やり直してください。")
        case (false, .wrongTab):
            (
                "This tab didn't start this sign-in",
                "Nothing was saved. Apple's sign-in came back in a tab or window other than the one where you pressed the button. If you started a sign-in, finish it in that tab; otherwise close this one."
            )
        case (true, .wrongTab):
            (
                "このタブで始めたサインインではありません",
                "何も保存していません。Apple のサインインが、ボタンを押したのとは別のタブやウィンドウに戻ってきました。サインインを始めた場合はそのタブで完了してください。心当たりがなければ、このタブを閉じてください。"
            )
        case (false, .signInFailed):
            ("Apple sign-in didn't finish", "Apple did not return a session. Start again from your AI app.")
        case (true, .signInFailed):
            ("Apple のサインインが完了しませんでした", "Apple からセッションが返されませんでした。AI アプリでもう一度やり直してください。")
        case (false, .temporarilyUnavailable), (false, .serverError):
            ("Something went wrong", "The service could not finish this step. Try again in a moment.")
        case (true, .temporarilyUnavailable), (true, .serverError):
            ("問題が発生しました", "この手順を完了できませんでした。少し待ってからもう一度お試しください。")
        case (false, .tooManyRequests):
            ("Too many attempts", "Wait a few minutes, then start again from your AI app.")
        case (true, .tooManyRequests):
            ("試行回数が多すぎます", "数分待ってから、AI アプリでもう一度やり直してください。")
        case (false, _):
            (
                "This request can't be used",
                "The app sent a request this server does not accept. Start again from your AI app; if it keeps happening, the app needs to register again."
            )
        case (true, _):
            ("このリクエストは使えません", "アプリから受け付けられないリクエストが送られました。AI アプリでもう一度やり直してください。繰り返し起こる場合は、アプリの再登録が必要です。")
        }
    }

    static let english = PageText(
        locale: .english,
        consentTitle: "Connect to your MustDo to-dos",
        consentLead: "<strong>{client}</strong> wants to use your MustDo to-dos in iCloud.",
        registeredBy: "It registered itself automatically: nobody has checked who runs it.",
        describedBy: "This app is identified by a document published at {host}.",
        verified: "Verified",
        verifiedAt: "Its identity is tied to {domain}.",
        verifiedPlatform: "Verified platform",
        anyAccountsConnector:
            "Anyone with a {platform} account can make a connector that returns here: the platform is verified, whose connector this is is not.",
        onlyIfYouAddedIt: "Continue only if you just added MustDo to {platform} yourself.",
        unverified: "Unverified app",
        claimsName:
            "It calls itself “{name}”, but anyone can register any name.",
        noName: "It gave no name.",
        selfRegisteredLead: "An app that returns to {host} wants to use your MustDo to-dos.",
        onlyIfYouUse: "Continue only if you just started connecting from {host}.",
        continueAndReturn: "Continue with Apple, then return to {host}",
        unverifiedName: "(unnamed app)",
        returnsTo: "After you sign in, you go back to",
        canDo: "It will be able to:",
        scopeRead: "See your to-dos and their times",
        scopeWrite: "Add, change, complete, snooze and delete to-dos",
        chooseAccess: "Choose what it may do:",
        choiceFull: "Read and change your to-dos",
        choiceAsked: "Everything it asked for",
        choiceReadOnly: "Only read your to-dos",
        readOnlyNote: "It can't add, change, complete, snooze or delete anything.",
        seeConnections: "See or end your connected apps",
        storedNote:
            "MustDo Relay keeps only an encrypted iCloud sign-in for this connection. It never stores your to-dos. You can disconnect at any time.",
        keepSignedIn:
            "On Apple's sign-in page, tick “Keep me signed in”. Without it, Apple can end the sign-in after 30 minutes, and the app will have to connect again.",
        onlyIfYouStarted: "Continue only if you just started connecting from this app.",
        continueWithApple: "Continue with Apple",
        cancel: "Cancel",
        errorTitle: "Error",
        backToApp: "Back to the app",
        startAgain: "Start again from your AI app.",
        disconnectTitle: "Disconnect AI apps from MustDo",
        disconnectLead: "This removes every connection between AI apps and your MustDo to-dos.",
        disconnectStored: [
            "For each connection, MustDo Relay keeps an encrypted iCloud sign-in, a random ID derived from your iCloud account, and hashed access tokens.",
            "It never stores your to-dos, your Apple ID or your password.",
        ],
        disconnectHow: "To prove it is you, sign in with Apple. Nothing from this sign-in is kept.",
        confirmWithApple: "Confirm with Apple",
        disconnectedTitle: "Disconnected",
        disconnected: "Removed {count} connections. The AI apps will need to connect again to use your to-dos.",
        disconnectedOne: "Removed 1 connection. The AI app will need to connect again to use your to-dos.",
        nothingToDisconnect: "There were no connections for this Apple account.",
        finishingTitle: "Finishing the sign-in…",
        needsScript:
            "This page needs JavaScript to finish the sign-in in the tab where you started it. Turn JavaScript on for this site and start again."
    )

    static let japanese = PageText(
        locale: .japanese,
        consentTitle: "MustDo の To-Do に接続",
        consentLead: "<strong>{client}</strong> が iCloud にある MustDo の To-Do を使おうとしています。",
        registeredBy: "このアプリは自動で登録されました。運営者は誰も確認していません。",
        describedBy: "このアプリは {host} で公開されている文書で識別されています。",
        verified: "確認済み",
        verifiedAt: "このアプリの身元は {domain} に結び付いています。",
        verifiedPlatform: "確認済みのプラットフォーム",
        anyAccountsConnector:
            "{platform} のアカウントがあれば誰でも、ここに戻るコネクタを作れます。プラットフォームは確認済みですが、このコネクタが誰のものかは確認されていません。",
        onlyIfYouAddedIt: "{platform} に MustDo をご自身で追加したばかりの場合にだけ続けてください。",
        unverified: "未確認のアプリ",
        claimsName: "「{name}」と名乗っていますが、名前は誰でも自由に登録できます。",
        noName: "名前はありません。",
        selfRegisteredLead: "{host} に戻るアプリが、MustDo の To-Do を使おうとしています。",
        onlyIfYouUse: "{host} から接続を始めたばかりの場合にだけ続けてください。",
        continueAndReturn: "Apple で続ける（その後 {host} に戻ります）",
        unverifiedName: "（名前のないアプリ）",
        returnsTo: "サインイン後の戻り先",
        canDo: "できること:",
        scopeRead: "To-Do とその時刻を見る",
        scopeWrite: "To-Do の追加・変更・完了・スヌーズ・削除",
        chooseAccess: "許可する内容を選んでください:",
        choiceFull: "To-Do の閲覧と変更",
        choiceAsked: "求められたすべて",
        choiceReadOnly: "To-Do の閲覧のみ",
        readOnlyNote: "To-Do の追加・変更・完了・スヌーズ・削除はできません。",
        seeConnections: "接続中のアプリを確認・解除する",
        storedNote: "MustDo Relay がこの接続のために保存するのは、暗号化した iCloud のサインイン情報だけです。To-Do の内容は保存しません。いつでも接続を解除できます。",
        keepSignedIn:
            "Apple のサインイン画面では「サインインしたままにする」にチェックを入れてください。チェックしないと、Apple が 30 分でサインインを終了することがあり、アプリの再接続が必要になります。",
        onlyIfYouStarted: "このアプリから接続を始めたばかりの場合にだけ続けてください。",
        continueWithApple: "Apple で続ける",
        cancel: "キャンセル",
        errorTitle: "エラー",
        backToApp: "アプリに戻る",
        startAgain: "AI アプリでもう一度やり直してください。",
        disconnectTitle: "AI アプリと MustDo の接続を解除",
        disconnectLead: "AI アプリと MustDo の To-Do の間の接続をすべて解除します。",
        disconnectStored: [
            "接続ごとに、暗号化した iCloud のサインイン情報、iCloud アカウントから作ったランダムな ID、ハッシュ化したアクセストークンを保存しています。",
            "To-Do の内容、Apple ID、パスワードは保存しません。",
        ],
        disconnectHow: "本人確認のため Apple でサインインしてください。このサインインの情報は保存しません。",
        confirmWithApple: "Apple で確認する",
        disconnectedTitle: "接続を解除しました",
        disconnected: "{count} 件の接続を解除しました。To-Do を使うには、AI アプリでもう一度接続してください。",
        disconnectedOne: "1 件の接続を解除しました。To-Do を使うには、AI アプリでもう一度接続してください。",
        nothingToDisconnect: "この Apple アカウントの接続はありませんでした。",
        finishingTitle: "サインインを完了しています…",
        needsScript: "サインインを始めたタブで完了するために、このページでは JavaScript が必要です。このサイトで JavaScript をオンにして、もう一度やり直してください。")
}
