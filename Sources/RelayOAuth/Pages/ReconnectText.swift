/// The sentences of signing in to iCloud again for one connection (`Reconnections`), in English
/// and Japanese.
struct ReconnectText: Sendable {
    var title: String
    var lead: String
    var app: String  // {host}
    var sameAccount: String
    var doneTitle: String
    var done: String
    var otherAccountTitle: String
    var otherAccount: String
    var usedTitle: String
    var used: String
    /// The connections page's state line and the button that makes a link.
    var waiting: String
    var signInAgain: String

    static func of(_ locale: PageLocale) -> ReconnectText { locale == .japanese ? japanese : english }

    static let english = ReconnectText(
        title: "Sign in to iCloud again",
        lead:
            "iCloud no longer accepts this connection's sign-in, so your AI app cannot reach your to-dos. The connection itself is kept: sign in to iCloud again and it works as before, without connecting the app again.",
        app: "Connection of the app that returns to {host}.",
        sameAccount: "Use the same Apple Account as when you connected; another account is refused.",
        doneTitle: "Signed in again",
        done: "The connection works again. Go back to your AI app and try once more.",
        otherAccountTitle: "That is another Apple Account",
        otherAccount:
            "You signed in with a different Apple Account than the one this connection uses. Nothing was changed. Get a new link from your AI app and sign in with the connection's account, or end the connection and connect again.",
        usedTitle: "This link can't be used",
        used:
            "The link was already used, has expired, or the connection no longer waits for a sign-in. Ask your AI app again for a new link.",
        waiting: "Needs iCloud sign-in",
        signInAgain: "Sign in to iCloud again")

    static let japanese = ReconnectText(
        title: "もう一度 iCloud にサインインしてください",
        lead:
            "この接続のサインインを iCloud が受け付けなくなったため、AI アプリから To-Do にアクセスできません。接続はそのまま残っています。もう一度 iCloud にサインインすれば、アプリを接続し直さずに元どおり使えます。",
        app: "{host} に戻るアプリの接続です。",
        sameAccount: "接続したときと同じ Apple アカウントを使ってください。別のアカウントは受け付けません。",
        doneTitle: "サインインしました",
        done: "接続はまた使えます。AI アプリに戻って、もう一度お試しください。",
        otherAccountTitle: "別の Apple アカウントです",
        otherAccount:
            "この接続とは別の Apple アカウントでサインインしました。何も変更していません。AI アプリから新しいリンクを受け取り、接続したアカウントでサインインするか、接続を終了して接続し直してください。",
        usedTitle: "このリンクは使えません",
        used: "リンクは使用済みか期限切れです。または、この接続はもうサインインを待っていません。AI アプリで新しいリンクを受け取ってください。",
        waiting: "iCloud へのサインインが必要です",
        signInAgain: "もう一度 iCloud にサインイン")
}
