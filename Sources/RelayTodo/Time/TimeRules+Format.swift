import Foundation
import RelayJSON

extension TimeRules {
    /// `instant` as ISO 8601 with this zone's offset at that instant, to the second:
    /// `2026-03-08T03:00:00-04:00`, `2026-06-01T09:00:00+00:00`.
    package func format(_ instant: Date) -> String {
        let seconds = offset(at: instant)
        let minutes = abs(seconds) / 60
        return TimeText.string { output in
            wallClock(at: instant).write(to: &output)
            output.append(seconds < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            TimeText.append(minutes / 60, width: 2, to: &output)
            output.append(UInt8(ascii: ":"))
            TimeText.append(minutes % 60, width: 2, to: &output)
        }
    }

    /// `format(_:)` as a JSON string, or JSON null for nil.
    func json(_ instant: Date?) -> JSONValue {
        guard let instant else { return .null }
        return .string(format(instant))
    }
}
