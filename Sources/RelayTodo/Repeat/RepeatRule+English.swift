extension RepeatRule {
    /// The rule in plain English for a model: "every other week on Monday and Wednesday at 07:30",
    /// "on the last Friday of every month at 18:00", "every year on March 3 at 08:00, 5 times".
    /// `start` is the first occurrence (`dueAt`) on the to-do's wall clock; without it the day and time
    /// that come from `dueAt` are left out. Days some months or years lack are explained (the 31st, the fifth
    /// Monday, 29 February: `RepeatSchedule`). `zone` names the to-do's time zone when it is not the account's.
    package func englishDescription(start: LocalDateTime?, zone: String? = nil) -> String {
        var text: String
        switch kind {
        case .daily:
            text = every("day", "days")
        case .weekly:
            text = every("week", "weeks")
            let days = weekdays.isEmpty ? start.map { [$0.date.weekday] } ?? [] : weekdays
            if !days.isEmpty { text += " on " + englishList(days.map(\.englishName)) }
        case .monthly:
            switch monthly {
            case .dayOfMonth:
                text = every("month", "months")
                if let day = start?.date.day {
                    text += " on the \(englishOrdinal(day))"
                    if day >= 29 { text += " (or the last day of shorter months)" }
                }
            case .weekdayOrdinal(let ordinal, let weekday):
                let which = ["last", "first", "second", "third", "fourth", "fifth"][max(ordinal, 0)]
                text = "on the \(which) \(weekday.englishName) of " + every("month", "months")
                if ordinal == 5 { text += " (skipped in months without a fifth \(weekday.englishName))" }
            }
        case .yearly:
            text = every("year", "years")
            if let date = start?.date {
                text += " on \(englishMonths[date.month - 1]) \(date.day)"
                if date.month == 2 && date.day == 29 { text += " (February 28 in other years)" }
            }
        }
        if let start { text += " at \(start.time)" }
        if let zone { text += " (\(zone) time)" }
        switch end {
        case .never: break
        case .until(let date): text += ", until \(englishMonths[date.month - 1]) \(date.day), \(date.year)"
        case .count(let count): text += count == 1 ? ", once" : ", \(count) times"
        }
        return text
    }

    private func every(_ unit: String, _ units: String) -> String {
        switch interval {
        case 1: "every \(unit)"
        case 2: "every other \(unit)"
        default: "every \(interval) \(units)"
        }
    }
}

private let englishMonths = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
]

/// "Monday", "Monday and Wednesday", "Monday, Wednesday and Friday".
private func englishList(_ items: [String]) -> String {
    guard items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " and " + items.last!
}

/// 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 23rd, 31st.
private func englishOrdinal(_ number: Int) -> String {
    let suffix: String
    switch (number % 10, number % 100) {
    case (_, 11...13): suffix = "th"
    case (1, _): suffix = "st"
    case (2, _): suffix = "nd"
    case (3, _): suffix = "rd"
    default: suffix = "th"
    }
    return "\(number)\(suffix)"
}
