import Foundation

/// A time argument (`due`, `until`) as the model wrote it, parsed without knowing the Account yet so that
/// malformed input fails before any CloudKit call. `TimeRules.resolve(_:)` turns it into an instant.
package enum TimeInput: Sendable, Equatable {
    /// `YYYY-MM-DD`: that day at the Account's default time.
    case date(LocalDate)
    /// `YYYY-MM-DDTHH:mm`: wall-clock time in the Account time zone.
    case wallClock(LocalDate, LocalTime)
    /// ISO 8601 with `Z` or an offset (`±HH:mm`, `±HHmm`, `±HH`), with or without seconds and fractions.
    case instant(Date)

    /// The accepted forms, for error messages and descriptions.
    package static let formats =
        "YYYY-MM-DDTHH:mm (account time zone), YYYY-MM-DD (default time), or ISO 8601 with offset "
        + "(2026-03-09T07:30:00-05:00 or …Z)"

    /// Parses `text`; anything but the three forms is `INVALID_ARGUMENT` naming `field`.
    package init(parsing text: String, field: String) throws(TodoError) {
        let bytes = Array(text.utf8)[...]
        guard let parsed = TimeInput.parse(bytes) else {
            throw .invalidArgument(field, "expected \(TimeInput.formats)")
        }
        self = parsed
    }

    private static func parse(_ bytes: ArraySlice<UInt8>) -> TimeInput? {
        if bytes.count == 10 { return LocalDate(bytes: bytes).map(TimeInput.date) }
        guard bytes.count >= 16, let date = LocalDate(bytes: bytes.prefix(10)),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"), bytes[13] == UInt8(ascii: ":"),
            let hour = decimal(bytes, from: 11, count: 2), let minute = decimal(bytes, from: 14, count: 2),
            let time = LocalTime(hour: hour, minute: minute)
        else { return nil }
        if bytes.count == 16 { return .wallClock(date, time) }
        var rest = bytes.dropFirst(16)
        var seconds = 0.0
        if rest.first == UInt8(ascii: ":") {
            guard let whole = decimal(rest, from: 1, count: 2), whole < 60 else { return nil }
            seconds = Double(whole)
            rest = rest.dropFirst(3)
            if rest.first == UInt8(ascii: ".") || rest.first == UInt8(ascii: ",") {
                let digits = rest.dropFirst().prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                guard (1...9).contains(digits.count), let fraction = decimal(digits, from: 0, count: digits.count)
                else { return nil }
                seconds += Double(fraction) / pow(10, Double(digits.count))
                rest = rest.dropFirst(1 + digits.count)
            }
        }
        guard let offset = zoneOffset(rest) else { return nil }
        let local = Double(date.daysSinceEpoch * 86400 + time.secondsSinceMidnight) + seconds
        return .instant(Date(timeIntervalSince1970: local - Double(offset)))
    }

    /// `Z`, `±HH:mm`, `±HHmm` or `±HH` as seconds east of UTC; nil for anything else (including nothing).
    private static func zoneOffset(_ bytes: ArraySlice<UInt8>) -> Int? {
        if bytes.count == 1, bytes.first == UInt8(ascii: "Z") || bytes.first == UInt8(ascii: "z") { return 0 }
        guard let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
            let hours = decimal(bytes, from: 1, count: 2), hours <= 23
        else { return nil }
        var minutes = 0
        switch bytes.count {
        case 3: break
        case 5: minutes = decimal(bytes, from: 3, count: 2) ?? 60
        case 6 where bytes[bytes.startIndex + 3] == UInt8(ascii: ":"): minutes = decimal(bytes, from: 4, count: 2) ?? 60
        default: return nil
        }
        guard minutes < 60 else { return nil }
        return (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
    }
}
