extension RepeatRule {
    /// The rule in Japanese, in the style the app uses for labels: frequency, day, time, then the end in
    /// brackets — 「隔週 月曜日と水曜日 07:30」, 「毎月 最終金曜日 18:00」, 「毎年 3月3日 08:00（全5回）」,
    /// 「隔月 31日 10:00（31日がない月は月末）」.
    /// `start` is the first occurrence on the to-do's wall clock and `zone` the to-do's zone when it is not the
    /// account's, as in `englishDescription(start:zone:)`: 「毎月 第5月曜日 09:00（第5月曜日がない月はなし）」,
    /// 「毎年 2月29日 08:00（うるう年以外は2月28日）」, 「毎日 07:30（Europe/London時間）」.
    package func japaneseDescription(start: LocalDateTime?, zone: String? = nil) -> String {
        var parts: [String] = []
        var notes: [String] = []
        switch kind {
        case .daily:
            parts.append(every(one: "毎日", two: "隔日", unit: "日ごと"))
        case .weekly:
            parts.append(every(one: "毎週", two: "隔週", unit: "週間ごと"))
            let days = weekdays.isEmpty ? start.map { [$0.date.weekday] } ?? [] : weekdays
            if !days.isEmpty { parts.append(japaneseList(days.map(\.japaneseName))) }
        case .monthly:
            parts.append(every(one: "毎月", two: "隔月", unit: "か月ごと"))
            switch monthly {
            case .dayOfMonth:
                if let day = start?.date.day {
                    parts.append("\(day)日")
                    if day >= 29 { notes.append("\(day)日がない月は月末") }
                }
            case .weekdayOrdinal(let ordinal, let weekday):
                parts.append((ordinal == -1 ? "最終" : "第\(ordinal)") + weekday.japaneseName)
                if ordinal == 5 { notes.append("第5\(weekday.japaneseName)がない月はなし") }
            }
        case .yearly:
            parts.append(every(one: "毎年", two: "隔年", unit: "年ごと"))
            if let date = start?.date {
                parts.append("\(date.month)月\(date.day)日")
                if date.month == 2 && date.day == 29 { notes.append("うるう年以外は2月28日") }
            }
        }
        if let start { parts.append(start.time.description) }
        if let zone { notes.insert("\(zone)時間", at: 0) }
        switch end {
        case .never: break
        case .until(let date): notes.append("\(date.year)年\(date.month)月\(date.day)日まで")
        case .count(let count): notes.append(count == 1 ? "1回のみ" : "全\(count)回")
        }
        let text = parts.joined(separator: " ")
        return notes.isEmpty ? text : text + "（" + notes.joined(separator: "、") + "）"
    }

    private func every(one: String, two: String, unit: String) -> String {
        switch interval {
        case 1: one
        case 2: two
        default: "\(interval)\(unit)"
        }
    }
}

/// 「月曜日」「月曜日と水曜日」「月曜日・水曜日・金曜日」.
private func japaneseList(_ items: [String]) -> String {
    items.count == 2 ? items.joined(separator: "と") : items.joined(separator: "・")
}
