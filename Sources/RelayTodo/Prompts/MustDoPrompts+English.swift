extension MustDoPrompts {
    /// The English request texts. Tool and argument names are the tools' own (`ToolName`), so a renamed tool
    /// changes the texts with it.
    enum English {
        static func plan(day: LocalDate?, focus: String?) -> String {
            let which = day.map { "\($0) (a \($0.weekday.englishName))" } ?? "today"
            let dateArgument = day.map { "\"\($0)\"" } ?? "today's date from \(ToolName.getMe)"
            let dayBefore = day.map { "\"\($0.adding(days: -1))\"" } ?? "yesterday's date"
            let focusLine = focus.map { ", keeping in mind what matters most to me: “\($0)”" } ?? ""
            return """
                Help me plan \(which) with my MustDo to-dos. Each to-do rings as an alarm on my iPhone at its due \
                time until I mark it done.

                1. Call \(ToolName.getMe) first: it gives today's date, my time zone, my default alarm time and my quiet \
                hours. Read every date and time below in my time zone, not yours.
                2. Call \(ToolName.listTodos) with date set to \(dateArgument). One-off to-dos come back in items, by due \
                time. Repeating ones come back in repeating, with their rule in repeatDescription: work out whether \
                each one rings that day, and check its occurrences for that day (done, skipped or snoozed).
                3. Call \(ToolName.listTodos) again with to set to \(dayBefore), status "pending" and includeRepeating \
                false: the one-off to-dos that are overdue. If nextCursor comes back, call again with it.
                4. Show me the day in time order with each alarm time (a snoozed to-do at its snooze time), and the \
                overdue ones apart. Point out alarms that clash or crowd together, and any in my quiet hours.
                5. Suggest a plan for the day\(focusLine): what to do when, what to move, what can wait.

                Change nothing until I agree. Then use \(ToolName.snooze) to move an alarm later (for a repeating to-do, \
                that day only), \(ToolName.update) to give a one-off to-do a new due time, and \(ToolName.complete) for what \
                is already done. Write times as YYYY-MM-DDTHH:mm in my time zone. If a result has \
                quietHoursAdjusted, tell me the time it moved to.
                """
        }

        static func review(end: LocalDate?) -> String {
            let span =
                end.map { "the seven days from \($0.adding(days: -6)) to \($0)" }
                ?? "the seven days that end today (from six days before today through today, by \(ToolName.getMe)'s today)"
            let from = end.map { "\"\($0.adding(days: -6))\"" } ?? "the date six days before today"
            let to = end.map { "\"\($0)\"" } ?? "today's date"
            let nextFrom = end.map { "\"\($0.adding(days: 1))\"" } ?? "tomorrow's date"
            let nextTo = end.map { "\"\($0.adding(days: 7))\"" } ?? "the date seven days after today"
            return """
                Review my week in MustDo: \(span).

                1. Call \(ToolName.getMe) first for today's date and my time zone.
                2. Call \(ToolName.listTodos) with status "done", includeRepeating false and no dates: what I \
                finished this week are the ones whose completedAt falls from \(from) through \(to) (the dates filter \
                by due time, and a to-do done this week may have been due in another).
                3. Call \(ToolName.listTodos) with the same from and to (status pending, repeating to-dos included). \
                One-off to-dos still open are what slipped. Each repeating to-do carries that week's occurrences \
                (done, skipped, snoozed), which show how often it was kept.
                4. Call \(ToolName.listTodos) with from set to \(nextFrom) and to set to \(nextTo): the week ahead.
                Whenever nextCursor comes back, call again with it and the same filters.

                Then give me a short review: what I got done; what slipped and a likely reason (too much at once, a \
                bad time, snoozed again and again); how each repeating to-do went; what next week looks like. End \
                with at most three concrete suggestions, such as moving a to-do's time or dropping one.

                Change nothing unless I ask. When I do, use \(ToolName.update) for new times, \(ToolName.snooze) or \
                \(ToolName.complete) for a single day, and \(ToolName.delete) only after I confirm each one.
                """
        }

        static func backlog(before: LocalDate?) -> String {
            let cutoff = before.map { "\($0)" } ?? "today"
            let to = before.map { "\"\($0.adding(days: -1))\"" } ?? "yesterday's date"
            return """
                Help me clear my MustDo backlog: the one-off to-dos due before \(cutoff) that are still not done.

                1. Call \(ToolName.getMe) first for today's date and my time zone.
                2. Call \(ToolName.listTodos) with to set to \(to), status "pending" and includeRepeating false. If \
                nextCursor comes back, call again with it and the same filters until you have them all. (Repeating \
                to-dos are left out on purpose: each day's occurrence stands on its own, so a missed day is not a \
                backlog.)
                3. If there are none, tell me so and stop.
                4. Otherwise show them oldest first, a few at a time, grouping the ones that look alike. For each, \
                suggest one of: done (\(ToolName.complete)); ring again later (\(ToolName.snooze) with a time in the future, \
                or \(ToolName.update) with a new due); or drop it (\(ToolName.delete)).
                5. Wait for my answer before changing anything, and confirm each \(ToolName.delete) with me first. Apply \
                what I decide, then call \(ToolName.listTodos) the same way again and tell me what is left.
                """
        }
    }
}
