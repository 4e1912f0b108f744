extension MustDoPrompts {
    /// The Japanese request texts: the same steps, tools and arguments as `English`, and a reply in Japanese.
    enum Japanese {
        static func plan(day: LocalDate?, focus: String?) -> String {
            let which = day.map { "\($0)(\($0.weekday.japaneseName))" } ?? "今日"
            let dateArgument = day.map { "\"\($0)\"" } ?? "\(ToolName.getMe) の今日の日付"
            let dayBefore = day.map { "\"\($0.adding(days: -1))\"" } ?? "昨日の日付"
            let focusLine = focus.map { "いちばん大事なこと「\($0)」を踏まえて、" } ?? ""
            return """
                MustDoのTODOで\(which)の計画を手伝ってください。TODOは期限の時刻にiPhoneでアラームとして鳴り、完了にするまで\
                鳴り続けます。日本語で答えてください。

                1. 最初に \(ToolName.getMe) を呼んでください。今日の日付、私のタイムゾーン、デフォルトのアラーム時刻、おやすみ時間\
                (quiet hours)がわかります。以下の日付と時刻はすべて、あなたのではなく私のタイムゾーンで読んでください。
                2. \(ToolName.listTodos) を、date に \(dateArgument) を指定して呼んでください。単発のTODOは items に期限の順で、\
                繰り返しのTODOは repeating にルール(repeatDescription)付きで返ります。繰り返しのものはその日に鳴るかどうかを\
                判断し、その日の occurrences(完了・スキップ・スヌーズ)を確認してください。
                3. もう一度 \(ToolName.listTodos) を、to に \(dayBefore)、status に "pending"、includeRepeating に false を\
                指定して呼んでください。期限切れの単発のTODOです。nextCursor が返ったら、それを指定して続きを取得してください。
                4. その日の予定を時刻順に、それぞれのアラーム時刻(スヌーズ中のものはスヌーズ後の時刻)とともに示し、\
                期限切れのものは分けて示してください。重なっている・詰まっているアラームや、おやすみ時間にかかるものを\
                指摘してください。
                5. \(focusLine)一日の計画を提案してください。何をいつやるか、何を動かすか、何は後回しでよいか。

                私が同意するまで何も変更しないでください。同意したら、アラームを後にずらすには \(ToolName.snooze)(繰り返しの\
                TODOはその日だけ)、単発のTODOの期限を変えるには \(ToolName.update)、もう終わったものには \(ToolName.complete) を\
                使ってください。時刻は私のタイムゾーンで YYYY-MM-DDTHH:mm と書いてください。結果に quietHoursAdjusted が\
                あれば、移動後の時刻を伝えてください。
                """
        }

        static func review(end: LocalDate?) -> String {
            let span = end.map { "\($0.adding(days: -6))から\($0)までの7日間" } ?? "今日までの7日間(\(ToolName.getMe) の今日の6日前から今日まで)"
            let from = end.map { "\"\($0.adding(days: -6))\"" } ?? "今日の6日前の日付"
            let to = end.map { "\"\($0)\"" } ?? "今日の日付"
            let nextFrom = end.map { "\"\($0.adding(days: 1))\"" } ?? "明日の日付"
            let nextTo = end.map { "\"\($0.adding(days: 7))\"" } ?? "今日の7日後の日付"
            return """
                MustDoで私の一週間を振り返ってください。対象は\(span)です。日本語で答えてください。

                1. 最初に \(ToolName.getMe) を呼んで、今日の日付と私のタイムゾーンを確認してください。
                2. \(ToolName.listTodos) を、status に "done"、includeRepeating に false を指定し、日付は指定せずに\
                呼んでください。completedAt が \(from) から \(to) までのものが、この週に終わらせたものです(日付の指定は\
                期限で絞り込むため、今週終わらせたTODOの期限が別の週のこともあります)。
                3. 同じ from と to で(status は pending、繰り返しのTODOを含めて)\(ToolName.listTodos) を呼んでください。\
                まだ残っている単発のTODOは、できなかったものです。繰り返しのTODOにはその週の occurrences(完了・スキップ・\
                スヌーズ)が付いているので、どのくらい続けられたかがわかります。
                4. \(ToolName.listTodos) を、from に \(nextFrom)、to に \(nextTo) を指定して呼んでください。来週の予定です。
                どの呼び出しでも、nextCursor が返ったら、それと同じ条件で続きを取得してください。

                そのうえで短く振り返ってください。できたこと、できなかったことと考えられる理由(一度に多すぎた、時刻が\
                合っていない、何度もスヌーズした など)、繰り返しのTODOそれぞれの様子、来週の見通し。最後に、TODOの時刻を\
                変える・やめるといった具体的な提案を3つまで挙げてください。

                頼まれない限り何も変更しないでください。頼まれたら、時刻の変更には \(ToolName.update)、一日分には \
                \(ToolName.snooze) か \(ToolName.complete) を使い、\(ToolName.delete) は一件ずつ私に確認してから使ってください。
                """
        }

        static func backlog(before: LocalDate?) -> String {
            let cutoff = before.map { "\($0)" } ?? "今日"
            let to = before.map { "\"\($0.adding(days: -1))\"" } ?? "昨日の日付"
            return """
                MustDoに溜まったTODOを片付けるのを手伝ってください。対象は、\(cutoff)より前が期限で、まだ完了していない\
                単発のTODOです。日本語で答えてください。

                1. 最初に \(ToolName.getMe) を呼んで、今日の日付と私のタイムゾーンを確認してください。
                2. \(ToolName.listTodos) を、to に \(to)、status に "pending"、includeRepeating に false を指定して\
                呼んでください。nextCursor が返ったら、同じ条件でそれを指定して、全部そろうまで続けてください。(繰り返しの\
                TODOはわざと除いています。毎日の分はそれぞれ独立しているので、鳴らなかった日は溜まったTODOではありません。)
                3. 一件もなければ、そう伝えて終わってください。
                4. あれば古い順に数件ずつ、似たものはまとめて示してください。それぞれについて、完了にする(\(ToolName.complete))、\
                あとでもう一度鳴らす(未来の時刻を指定して \(ToolName.snooze)、または新しい期限で \(ToolName.update))、\
                やめる(\(ToolName.delete))のどれかを提案してください。
                5. 私の返事があるまで何も変更せず、\(ToolName.delete) は一件ずつ先に確認してください。決めたとおりに反映したら、\
                同じ条件でもう一度 \(ToolName.listTodos) を呼び、残っているものを伝えてください。
                """
        }
    }
}
