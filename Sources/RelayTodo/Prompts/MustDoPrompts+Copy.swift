extension MustDoPrompts {
    /// What a prompt says in one language: the strings of `prompts/list` and the request texts.
    struct Copy {
        let language: Language

        init(_ language: Language) { self.language = language }

        private var english: Bool { language == .english }

        var planTitle: String { english ? "Plan my day" : "今日の計画" }
        var planDescription: String {
            english
                ? "Plan a day from your MustDo to-dos and their alarms: what rings when, what is overdue, and a "
                    + "suggested order. Nothing changes until you agree."
                : "MustDoのTODOとアラームから一日の計画を立てます。いつ何が鳴るか、期限切れのもの、おすすめの順番。"
                    + "あなたが同意するまで何も変更しません。"
        }
        var dateTitle: String { english ? "Day" : "日付" }
        var planDateDescription: String {
            english ? "The day to plan, YYYY-MM-DD. Default: today." : "計画する日(YYYY-MM-DD)。省略すると今日。"
        }
        var focusTitle: String { english ? "Focus" : "いちばん大事なこと" }
        var focusDescription: String {
            english
                ? "What matters most that day, in a few words (optional)."
                : "その日いちばん大事なことを短く(任意)。"
        }

        var reviewTitle: String { english ? "Review my week" : "週の振り返り" }
        var reviewDescription: String {
            english
                ? "Look back at seven days of MustDo to-dos: what got done, what slipped, how your repeating "
                    + "to-dos went, and what the next week holds."
                : "過去7日間のMustDoのTODOを振り返ります。できたこと、できなかったこと、繰り返しのTODOの続き具合、"
                    + "来週の予定。"
        }
        var weekEndingTitle: String { english ? "Last day" : "最終日" }
        var weekEndingDescription: String {
            english
                ? "The last day of the week to review, YYYY-MM-DD. Default: today."
                : "振り返る週の最終日(YYYY-MM-DD)。省略すると今日。"
        }

        var backlogTitle: String { english ? "Clear overdue to-dos" : "期限切れの整理" }
        var backlogDescription: String {
            english
                ? "Go through the to-dos whose alarm time passed without being marked done, and decide with you "
                    + "for each: done, later, or delete."
                : "アラームの時刻が過ぎたのに完了になっていないTODOを一緒に片付けます。完了、あとで、削除のどれにするかを"
                    + "一件ずつ決めます。"
        }
        var beforeTitle: String { english ? "Due before" : "この日より前" }
        var beforeDescription: String {
            english
                ? "Take the to-dos due before this day, YYYY-MM-DD. Default: today."
                : "この日より前が期限のTODOを対象にします(YYYY-MM-DD)。省略すると今日。"
        }

        func plan(day: LocalDate?, focus: String?) -> String {
            english ? English.plan(day: day, focus: focus) : Japanese.plan(day: day, focus: focus)
        }

        func review(end: LocalDate?) -> String { english ? English.review(end: end) : Japanese.review(end: end) }

        func backlog(before: LocalDate?) -> String {
            english ? English.backlog(before: before) : Japanese.backlog(before: before)
        }
    }
}
