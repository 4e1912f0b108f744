import RelayJSON

extension RepeatRule {
    /// The canonical object: `kind`, `interval`, `weekdays`, `monthly` (monthly rules only) and `end`, every
    /// member present, in this order. Used in tool results and, as a string, in the record.
    package var json: JSONValue {
        var object: JSONObject = [
            "kind": .string(kind.rawValue), "interval": .int(interval),
            "weekdays": .array(weekdays.map { .int($0.rawValue) }),
        ]
        if kind == .monthly {
            switch monthly {
            case .dayOfMonth: object["monthly"] = ["mode": "dayOfMonth"]
            case .weekdayOrdinal(let ordinal, let weekday):
                object["monthly"] = [
                    "mode": "weekdayOrdinal", "ordinal": .int(ordinal), "weekday": .int(weekday.rawValue),
                ]
            }
        }
        switch end {
        case .never: object["end"] = ["kind": "never"]
        case .until(let date): object["end"] = ["kind": "until", "until": .string(date.description)]
        case .count(let count): object["end"] = ["kind": "count", "count": .int(count)]
        }
        return .object(object)
    }

    /// The record's `repeatRule` string: compact canonical JSON.
    package var recordValue: String { json.jsonString }

    /// Reads a record's `repeatRule` string. Strict first; if the app wrote something this version does not
    /// accept, each member is read on its own and bad ones take their defaults, so a repeating to-do is never
    /// mistaken for a one-off. Nil for an empty or non-JSON string or a kind of `none`/unknown.
    package init?(recordValue: String) {
        guard !recordValue.isEmpty, let value = try? JSONValue(parsing: recordValue) else { return nil }
        do {
            guard let strict = try RepeatRule.parse(value) else { return nil }
            self = strict
            return
        } catch {
            // Fall through to the member-by-member reading.
        }
        guard let kind = value["kind"]?.stringValue.flatMap(Kind.init(rawValue:)) else { return nil }
        let interval = value["interval"]?.intValue.flatMap { RepeatRule.intervals.contains($0) ? $0 : nil } ?? 1
        let weekdays = (value["weekdays"]?.arrayValue ?? []).compactMap { $0.intValue.flatMap(Weekday.init(rawValue:)) }
        var monthly = Monthly.dayOfMonth
        if let ordinal = value["monthly"]?["ordinal"]?.intValue, RepeatRule.ordinals.contains(ordinal),
            let weekday = value["monthly"]?["weekday"]?.intValue.flatMap(Weekday.init(rawValue:)),
            value["monthly"]?["mode"]?.stringValue == "weekdayOrdinal"
        {
            monthly = .weekdayOrdinal(ordinal: ordinal, weekday: weekday)
        }
        var end = End.never
        switch value["end"]?["kind"]?.stringValue {
        case "until": end = value["end"]?["until"]?.stringValue.flatMap(LocalDate.init).map(End.until) ?? .never
        case "count":
            let count = value["end"]?["count"]?.intValue.flatMap { RepeatRule.counts.contains($0) ? $0 : nil }
            end = count.map(End.count) ?? .never
        default: break
        }
        self.init(kind: kind, interval: interval, weekdays: kind == .weekly ? weekdays : [], monthly: monthly, end: end)
    }
}
