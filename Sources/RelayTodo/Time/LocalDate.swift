/// A calendar date without a time zone (`YYYY-MM-DD`, proleptic Gregorian). Used for `date`, `from`, `to`,
/// `occurrenceDate`, repeat `end.until` and Occurrence record names.
package struct LocalDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The year, 1…9999.
    package let year: Int
    /// The month, 1…12.
    package let month: Int
    /// The day of the month, 1…31.
    package let day: Int

    /// A date, or nil when the day does not exist (2026-02-29, 2026-04-31) or the year is outside 1…9999.
    package init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...LocalDate.daysInMonth(year: year, month: month)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses exactly `YYYY-MM-DD`; anything else (other separators, missing zero padding, a time) is nil.
    package init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, let date = LocalDate(bytes: bytes[...]) else { return nil }
        self = date
    }

    /// Parses `YYYY-MM-DD` from exactly ten bytes.
    init?(bytes: ArraySlice<UInt8>) {
        guard bytes.count == 10,
            bytes[bytes.startIndex + 4] == UInt8(ascii: "-"), bytes[bytes.startIndex + 7] == UInt8(ascii: "-"),
            let year = decimal(bytes, from: 0, count: 4), let month = decimal(bytes, from: 5, count: 2),
            let day = decimal(bytes, from: 8, count: 2)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The date `days` days after 1970-01-01 (negative: before).
    package init(daysSinceEpoch days: Int) {
        // Howard Hinnant's civil_from_days.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
    package var daysSinceEpoch: Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` days later (earlier when negative).
    package func adding(days: Int) -> LocalDate { LocalDate(daysSinceEpoch: daysSinceEpoch + days) }

    /// The day of the week.
    package var weekday: Weekday {
        // 1970-01-01 was a Thursday (5 in 1 = Sunday numbering).
        let index = ((daysSinceEpoch + 4) % 7 + 7) % 7
        return Weekday(rawValue: index + 1)!
    }

    /// `YYYY-MM-DD`.
    package var description: String { TimeText.string { write(to: &$0) } }

    /// Appends `YYYY-MM-DD`.
    func write(to output: inout TimeText.Buffer) {
        TimeText.append(year, width: 4, to: &output)
        output.append(UInt8(ascii: "-"))
        TimeText.append(month, width: 2, to: &output)
        output.append(UInt8(ascii: "-"))
        TimeText.append(day, width: 2, to: &output)
    }

    /// The number of days in `month` of `year`.
    package static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Whether `year` is a Gregorian leap year.
    package static func isLeapYear(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    package static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

/// The non-negative decimal number in `count` ASCII digits at `offset` of `bytes`, or nil.
func decimal(_ bytes: ArraySlice<UInt8>, from offset: Int, count: Int) -> Int? {
    let start = bytes.startIndex + offset
    guard offset >= 0, count > 0, start + count <= bytes.endIndex else { return nil }
    var value = 0
    for byte in bytes[start..<start + count] {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
}
