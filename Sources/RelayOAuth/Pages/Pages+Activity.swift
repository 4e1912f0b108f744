import RelayHTTP

/// Issue 44 on the pages: the consent page's choice of how long a connection lives, and, on the
/// connections page, that choice and what each connection did per UTC day. Only counts: the relay
/// keeps no title, content or ID of any to-do.
extension Pages {
    /// The consent form's lifetime choice: three radio buttons side by side, "until I end it"
    /// preselected. It follows "Continue with Apple" in the form, so the button stays on a phone's
    /// first screen whatever the app's name (TabBindingBrowserTests).
    func lifetimeChoice(locale: PageLocale) -> String {
        let text = ActivityText.of(locale)
        var html = "<fieldset class=lifetime><legend>\(HTML.escape(text.keepFor))</legend><div class=segments>"
        for (index, choice) in ConnectionLifetime.allCases.enumerated() {
            html += """
                <label><input type=radio name=\(ConnectionLifetime.field) value="\(choice.rawValue)"\
                \(index == 0 ? " checked" : "")><span>\(HTML.escape(text.lifetimes[choice] ?? choice.rawValue))</span></label>
                """
        }
        return html + "</div></fieldset>"
    }

    /// How long a connection lives, as its row says it: the person's choice and its end day.
    func lifetimeLine(_ grant: GrantRecord, locale: PageLocale) -> String {
        let text = ActivityText.of(locale)
        let end = PageDate.format(day: UsageRecorder.day(grant.endsAt), locale: locale)
        let what: String
        switch grant.lifetime ?? .untilEnded {
        case .untilEnded:
            what = text.lastsUntilEnded + " (" + text.atTheLatest.replacingOccurrences(of: "{date}", with: end) + ")"
        case let chosen:
            what =
                (text.lifetimes[chosen] ?? chosen.rawValue) + " ("
                + text.endsOn.replacingOccurrences(of: "{date}", with: end) + ")"
        }
        return "<p class=lifetime-line>\(HTML.escape(text.lasts)): \(HTML.escape(what))</p>"
    }

    /// The connection's counts: the 30-day totals, then one line per day with activity, newest
    /// first. The four everyday actions always show (zero included); updated and undone when they
    /// happened.
    func activitySummary(_ days: [DayActivity], locale: PageLocale) -> String {
        let text = ActivityText.of(locale)
        var html = "<div class=activity><p><strong>\(HTML.escape(text.lastDays))</strong></p>"
        guard !days.isEmpty else { return html + "<p class=muted>\(HTML.escape(text.nothingYet))</p></div>" }
        var totals: [ConnectionAction: Int] = [:]
        for action in ConnectionAction.allCases { totals[action] = DayActivity.total(action, in: days) }
        html += "<p class=totals>\(HTML.escape(Self.counts(totals, text: text)))</p><ul class=days>"
        for day in days {
            let date = PageDate.format(day: day.day, locale: locale)
            html +=
                "<li><span class=day>\(HTML.escape(date))</span> \(HTML.escape(Self.counts(day.counts, text: text)))</li>"
        }
        return html + "</ul></div>"
    }

    /// "added 3 · completed 1 · snoozed 2 · deleted 0", then updated and undone when not zero.
    private static func counts(_ counts: [ConnectionAction: Int], text: ActivityText) -> String {
        ConnectionAction.allCases.compactMap { action -> String? in
            let count = counts[action] ?? 0
            if count == 0, action == .updated || action == .undone { return nil }
            return "\(text.actions[action] ?? action.rawValue) \(count)"
        }.joined(separator: " · ")
    }
}
