/// Every sentence of the connections page, in English and Japanese. `{minutes}` and `{count}` are
/// filled in by the page; names and hosts go in escaped.
struct ConnectionsText: Sendable {
    var title: String
    var lead: String
    var how: String  // {minutes}
    var disconnectInstead: String
    var countNone: String
    var countOne: String
    var countMany: String  // {count}
    var unverified: String
    var returnsTo: String
    var mayDo: String
    var connected: String
    var lastUsed: String
    var notYet: String
    var end: String
    var endAll: String
    var signOut: String
    var endedNone: String
    var endedOne: String
    var endedMany: String  // {count}
    var staysOpen: String  // {minutes}
    var utcDates: String
    var sessionEndedTitle: String
    var sessionEnded: String  // {minutes}
    var staleTitle: String
    var stale: String
    var openAgain: String

    static func of(_ locale: PageLocale) -> ConnectionsText { locale == .japanese ? japanese : english }

    static let english = ConnectionsText(
        title: "Your connected AI apps",
        lead: "See which AI apps can use your MustDo to-dos, and end any of them.",
        how:
            "To prove it is you, sign in with Apple. Nothing from this sign-in is kept. The list then stays open for {minutes} minutes.",
        disconnectInstead: "Or disconnect every app at once",
        countNone: "No AI app can use your MustDo to-dos.",
        countOne: "1 AI app can use your MustDo to-dos.",
        countMany: "{count} AI apps can use your MustDo to-dos.",
        unverified: "Unverified name",
        returnsTo: "Returns to",
        mayDo: "May",
        connected: "Connected",
        lastUsed: "Last used",
        notYet: "not yet",
        end: "End this connection",
        endAll: "End all connections",
        signOut: "Sign out of this page",
        endedNone: "Nothing was ended: that connection had already ended.",
        endedOne: "Ended 1 connection. That app must connect again to use your to-dos.",
        endedMany: "Ended {count} connections. Those apps must connect again to use your to-dos.",
        staysOpen: "This page stays open for {minutes} minutes after you confirm with Apple.",
        utcDates: "Dates are UTC days.",
        sessionEndedTitle: "Confirm with Apple again",
        sessionEnded:
            "Your connections stay visible for {minutes} minutes after you confirm with Apple; that time is over, or you signed out.",
        staleTitle: "This page is out of date",
        stale:
            "It was opened again in another tab, or this form was already sent. Open your connections again and try once more.",
        openAgain: "Open your connections")

    static let japanese = ConnectionsText(
        title: "接続中の AI アプリ",
        lead: "MustDo の To-Do を使える AI アプリを確認し、個別に接続を解除できます。",
        how: "本人確認のため Apple でサインインしてください。このサインインの情報は保存しません。確認後 {minutes} 分間、一覧を表示できます。",
        disconnectInstead: "すべてのアプリの接続を一度に解除する",
        countNone: "MustDo の To-Do を使える AI アプリはありません。",
        countOne: "1 件の AI アプリが MustDo の To-Do を使えます。",
        countMany: "{count} 件の AI アプリが MustDo の To-Do を使えます。",
        unverified: "名前は未確認",
        returnsTo: "戻り先",
        mayDo: "できること",
        connected: "接続日",
        lastUsed: "最終利用日",
        notYet: "まだ使われていません",
        end: "この接続を解除",
        endAll: "すべての接続を解除",
        signOut: "このページからサインアウト",
        endedNone: "解除したものはありません。その接続はすでに解除されていました。",
        endedOne: "1 件の接続を解除しました。そのアプリで To-Do を使うには、もう一度接続が必要です。",
        endedMany: "{count} 件の接続を解除しました。それらのアプリで To-Do を使うには、もう一度接続が必要です。",
        staysOpen: "このページは Apple で確認してから {minutes} 分間表示できます。",
        utcDates: "日付は UTC の日付です。",
        sessionEndedTitle: "もう一度 Apple で確認してください",
        sessionEnded: "接続の一覧は Apple で確認してから {minutes} 分間だけ表示できます。その時間が過ぎたか、サインアウトしました。",
        staleTitle: "このページは古くなっています",
        stale: "別のタブで開き直されたか、このフォームはすでに送信されています。接続の一覧を開き直して、もう一度お試しください。",
        openAgain: "接続の一覧を開く")
}
