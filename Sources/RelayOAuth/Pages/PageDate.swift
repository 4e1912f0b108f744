/// A day as a page shows it: "May 3, 2026" or "2026年5月3日". Days are UTC days since 1970-01-01
/// (`UsageRecorder.day`): the relay does not know the person's time zone, and the page says so.
enum PageDate {
    private static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]

    static func format(day: Int, locale: PageLocale) -> String {
        let (year, month, dayOfMonth) = civil(day)
        switch locale {
        case .english: return "\(months[month - 1]) \(dayOfMonth), \(year)"
        case .japanese: return "\(year)年\(month)月\(dayOfMonth)日"
        }
    }

    /// Year, month (1...12) and day of month of a day count (the proleptic Gregorian calendar;
    /// H. Hinnant, "chrono-Compatible Low-Level Date Algorithms", `civil_from_days`).
    static func civil(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
