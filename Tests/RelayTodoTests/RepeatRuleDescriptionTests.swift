import Testing

@testable import RelayTodo

@Suite struct RepeatRuleDescriptionTests {
    /// A first occurrence on `date` at `time`.
    func at(_ date: String, _ time: String) -> LocalDateTime {
        LocalDateTime(date: day(date), secondsOfDay: clock(time).secondsSinceMidnight)
    }

    @Test(arguments: [
        (RepeatRule(kind: .daily), "2026-03-09", "09:00", "every day at 09:00", "毎日 09:00"),
        (RepeatRule(kind: .daily, interval: 2), "2026-03-09", "06:00", "every other day at 06:00", "隔日 06:00"),
        (
            RepeatRule(kind: .daily, interval: 3, end: .count(10)), "2026-03-09", "06:00",
            "every 3 days at 06:00, 10 times", "3日ごと 06:00（全10回）"
        ),
        (
            RepeatRule(kind: .weekly, interval: 2, weekdays: [.monday, .wednesday]), "2026-03-09", "07:30",
            "every other week on Monday and Wednesday at 07:30", "隔週 月曜日と水曜日 07:30"
        ),
        (RepeatRule(kind: .weekly), "2026-03-10", "08:15", "every week on Tuesday at 08:15", "毎週 火曜日 08:15"),
        (
            RepeatRule(kind: .weekly, interval: 3, weekdays: [.monday, .wednesday, .friday]), "2026-03-09", "07:00",
            "every 3 weeks on Monday, Wednesday and Friday at 07:00", "3週間ごと 月曜日・水曜日・金曜日 07:00"
        ),
        (
            RepeatRule(kind: .weekly, weekdays: [.monday], end: .until(day("2026-12-31"))), "2026-03-09", "07:00",
            "every week on Monday at 07:00, until December 31, 2026", "毎週 月曜日 07:00（2026年12月31日まで）"
        ),
        (RepeatRule(kind: .monthly), "2026-03-05", "10:00", "every month on the 5th at 10:00", "毎月 5日 10:00"),
        (
            RepeatRule(kind: .monthly, interval: 2), "2026-01-31", "10:00",
            "every other month on the 31st (or the last day of shorter months) at 10:00", "隔月 31日 10:00（31日がない月は月末）"
        ),
        (RepeatRule(kind: .monthly), "2026-03-22", "10:00", "every month on the 22nd at 10:00", "毎月 22日 10:00"),
        (RepeatRule(kind: .monthly), "2026-03-11", "10:00", "every month on the 11th at 10:00", "毎月 11日 10:00"),
        (
            RepeatRule(kind: .monthly, monthly: .weekdayOrdinal(ordinal: -1, weekday: .friday)), "2026-03-27", "18:00",
            "on the last Friday of every month at 18:00", "毎月 最終金曜日 18:00"
        ),
        (
            RepeatRule(kind: .monthly, monthly: .weekdayOrdinal(ordinal: 1, weekday: .monday)), "2026-03-02", "09:00",
            "on the first Monday of every month at 09:00", "毎月 第1月曜日 09:00"
        ),
        (
            RepeatRule(kind: .monthly, interval: 3, monthly: .weekdayOrdinal(ordinal: 2, weekday: .tuesday)),
            "2026-03-10", "09:00", "on the second Tuesday of every 3 months at 09:00", "3か月ごと 第2火曜日 09:00"
        ),
        (
            RepeatRule(kind: .yearly, end: .count(5)), "2026-03-03", "08:00", "every year on March 3 at 08:00, 5 times",
            "毎年 3月3日 08:00（全5回）"
        ),
        (
            RepeatRule(kind: .yearly, interval: 2, end: .count(1)), "2026-12-25", "08:00",
            "every other year on December 25 at 08:00, once", "隔年 12月25日 08:00（1回のみ）"
        ),
        (
            RepeatRule(kind: .yearly, interval: 4), "2028-02-29", "12:00",
            "every 4 years on February 29 (February 28 in other years) at 12:00", "4年ごと 2月29日 12:00（うるう年以外は2月28日）"
        ),
    ])
    func describesInBothLanguages(rule: RepeatRule, date: String, time: String, english: String, japanese: String) {
        #expect(rule.englishDescription(start: at(date, time)) == english)
        #expect(rule.japaneseDescription(start: at(date, time)) == japanese)
    }

    @Test func withoutADueTimeTheDayAndTimeAreLeftOut() {
        #expect(RepeatRule(kind: .weekly).englishDescription(start: nil) == "every week")
        #expect(RepeatRule(kind: .monthly).englishDescription(start: nil) == "every month")
        #expect(RepeatRule(kind: .yearly, end: .count(2)).japaneseDescription(start: nil) == "毎年（全2回）")
        #expect(
            RepeatRule(kind: .monthly, end: .count(3)).japaneseDescription(start: at("2026-01-30", "07:00"))
                == "毎月 30日 07:00（30日がない月は月末、全3回）")
    }
}
