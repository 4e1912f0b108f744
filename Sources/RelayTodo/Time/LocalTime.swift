/// A wall-clock time of day to the minute (`HH:mm`, 24-hour): `Account.defaultTime`, quiet hours,
/// the time part of `YYYY-MM-DDTHH:mm`.
package struct LocalTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The hour, 0…23.
    package let hour: Int
    /// The minute, 0…59.
    package let minute: Int

    /// A time, or nil when out of range.
    package init?(hour: Int, minute: Int) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.hour = hour
        self.minute = minute
    }

    /// Parses exactly `HH:mm`, reading the string's UTF-8 view.
    package init?(_ text: String) {
        var hour = 0
        var minute = 0
        var position = 0
        for byte in text.utf8 {
            switch position {
            case 2:
                guard byte == UInt8(ascii: ":") else { return nil }
            case 0, 1, 3, 4:
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                let digit = Int(byte - UInt8(ascii: "0"))
                if position < 2 { hour = hour * 10 + digit } else { minute = minute * 10 + digit }
            default:
                return nil
            }
            position += 1
        }
        guard position == 5 else { return nil }
        self.init(hour: hour, minute: minute)
    }

    /// 09:00, the default alarm time when the Account does not set one.
    package static let nine = LocalTime(hour: 9, minute: 0)!

    /// Minutes since midnight.
    package var minutesSinceMidnight: Int { hour * 60 + minute }

    /// Seconds since midnight.
    package var secondsSinceMidnight: Int { minutesSinceMidnight * 60 }

    /// `HH:mm`.
    package var description: String {
        TimeText.string { output in
            TimeText.append(hour, width: 2, to: &output)
            output.append(UInt8(ascii: ":"))
            TimeText.append(minute, width: 2, to: &output)
        }
    }

    package static func < (lhs: LocalTime, rhs: LocalTime) -> Bool {
        lhs.minutesSinceMidnight < rhs.minutesSinceMidnight
    }
}

/// A wall-clock reading in some time zone: a date and the seconds since that date's midnight.
package struct LocalDateTime: Sendable, Hashable, CustomStringConvertible {
    /// The calendar date.
    package let date: LocalDate
    /// Seconds since midnight, 0…86399.
    package let secondsOfDay: Int

    /// A reading from a date and seconds since midnight.
    package init(date: LocalDate, secondsOfDay: Int) {
        self.date = date
        self.secondsOfDay = secondsOfDay
    }

    /// The time to the minute (seconds dropped).
    package var time: LocalTime { LocalTime(hour: secondsOfDay / 3600, minute: secondsOfDay % 3600 / 60)! }

    /// `YYYY-MM-DDTHH:mm:ss`.
    package var description: String { TimeText.string { write(to: &$0) } }

    /// Appends `YYYY-MM-DDTHH:mm:ss`.
    func write(to output: inout TimeText.Buffer) {
        date.write(to: &output)
        output.append(UInt8(ascii: "T"))
        TimeText.append(secondsOfDay / 3600, width: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        TimeText.append(secondsOfDay % 3600 / 60, width: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        TimeText.append(secondsOfDay % 60, width: 2, to: &output)
    }
}
