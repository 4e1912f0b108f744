/// A weekend on which the clocks change (on the Sunday), in one of the three zones the tool rules are tried in,
/// with the UTC offsets in force at 07:30 on each day. Tokyo has no DST: its weekend is the control.
struct DSTWeekend: Sendable, CustomStringConvertible {
    let zone: String
    let saturday: String
    let saturdayOffset: String
    /// The day the clocks change.
    let sunday: String
    let sundayOffset: String
    let monday: String
    let nextSunday: String

    var description: String { "\(zone) \(sunday)" }

    /// `time` (HH:mm) on Saturday as ISO 8601 with that day's offset.
    func onSaturday(_ time: String) -> String { "\(saturday)T\(time):00\(saturdayOffset)" }
    /// `time` (HH:mm) on Sunday as ISO 8601 with that day's offset.
    func onSunday(_ time: String) -> String { "\(sunday)T\(time):00\(sundayOffset)" }

    static let all = [
        DSTWeekend(
            zone: "America/New_York", saturday: "2026-03-07", saturdayOffset: "-05:00", sunday: "2026-03-08",
            sundayOffset: "-04:00", monday: "2026-03-09", nextSunday: "2026-03-15"),
        DSTWeekend(
            zone: "America/New_York", saturday: "2026-10-31", saturdayOffset: "-04:00", sunday: "2026-11-01",
            sundayOffset: "-05:00", monday: "2026-11-02", nextSunday: "2026-11-08"),
        DSTWeekend(
            zone: "Europe/London", saturday: "2026-03-28", saturdayOffset: "+00:00", sunday: "2026-03-29",
            sundayOffset: "+01:00", monday: "2026-03-30", nextSunday: "2026-04-05"),
        DSTWeekend(
            zone: "Europe/London", saturday: "2026-10-24", saturdayOffset: "+01:00", sunday: "2026-10-25",
            sundayOffset: "+00:00", monday: "2026-10-26", nextSunday: "2026-11-01"),
        DSTWeekend(
            zone: "Asia/Tokyo", saturday: "2026-03-07", saturdayOffset: "+09:00", sunday: "2026-03-08",
            sundayOffset: "+09:00", monday: "2026-03-09", nextSunday: "2026-03-15"),
    ]
}
