/// The sentences of issue 44 on the consent and connections pages, in English and Japanese: how
/// long a connection lives, and what each connection did. `{date}` is filled in by the page.
struct ActivityText: Sendable {
    var keepFor: String
    var lifetimes: [ConnectionLifetime: String]
    var lasts: String
    var lastsUntilEnded: String
    var atTheLatest: String  // {date}
    var endsOn: String  // {date}
    var lastDays: String
    var nothingYet: String
    var actions: [ConnectionAction: String]

    static func of(_ locale: PageLocale) -> ActivityText { locale == .japanese ? japanese : english }

    static let english = ActivityText(
        keepFor: "Keep this connection",
        lifetimes: [.untilEnded: "Until I end it", .thirtyDays: "30 days", .oneDay: "1 day"],
        lasts: "Lasts",
        lastsUntilEnded: "until you end it",
        atTheLatest: "at the latest until {date}",
        endsOn: "until {date}",
        lastDays: "What it did in the last 30 days",
        nothingYet: "Nothing changed in the last 30 days.",
        actions: [
            .added: "added", .completed: "completed", .snoozed: "snoozed", .deleted: "deleted", .updated: "updated",
            .undone: "undone",
        ])

    static let japanese = ActivityText(
        keepFor: "この接続の期間",
        lifetimes: [.untilEnded: "解除するまで", .thirtyDays: "30 日間", .oneDay: "1 日間"],
        lasts: "期間",
        lastsUntilEnded: "解除するまで",
        atTheLatest: "最長 {date} まで",
        endsOn: "{date} まで",
        lastDays: "過去 30 日間にしたこと",
        nothingYet: "過去 30 日間に変更はありません。",
        actions: [.added: "追加", .completed: "完了", .snoozed: "スヌーズ", .deleted: "削除", .updated: "更新", .undone: "取り消し"])
}
