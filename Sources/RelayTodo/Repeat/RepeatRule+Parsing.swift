import RelayJSON

extension RepeatRule {
    /// Parses a `repeat` argument. Returns nil for `null` or `{kind: "none"}` (no repetition). Errors are
    /// `INVALID_ARGUMENT` naming the nested field (`repeat.interval`, `repeat.monthly.ordinal`, …); sub-fields
    /// left out take their defaults, unknown members and members that do not apply to the kind are errors.
    package static func parse(_ value: JSONValue, field: String = "repeat") throws(TodoError) -> RepeatRule? {
        if value.isNull { return nil }
        let object = try ArgumentObject(
            value, field: field, allowed: ["kind", "interval", "weekdays", "monthly", "end"])
        let kindName = try object.requiredString("kind")
        if kindName == "none" {
            _ = try object.int("interval", in: intervals)
            return nil
        }
        guard let kind = Kind(rawValue: kindName) else {
            throw .invalidArgument(object.path("kind"), "must be one of none, daily, weekly, monthly, yearly")
        }
        let interval = try object.int("interval", in: intervals) ?? 1
        var weekdays: [Weekday] = []
        if let list = try object.array("weekdays") {
            weekdays = try list.enumerated().map { (index, element) throws(TodoError) in
                try weekday(element, field: object.path("weekdays[\(index)]"))
            }
            if kind != .weekly && !weekdays.isEmpty {
                throw .invalidArgument(object.path("weekdays"), "only applies when kind is weekly")
            }
        }
        var monthly = Monthly.dayOfMonth
        if let member = object["monthly"], !member.isNull {
            guard kind == .monthly else {
                throw .invalidArgument(object.path("monthly"), "only applies when kind is monthly")
            }
            monthly = try parseMonthly(member, field: object.path("monthly"))
        }
        var end = End.never
        if let member = object["end"], !member.isNull { end = try parseEnd(member, field: object.path("end")) }
        return RepeatRule(kind: kind, interval: interval, weekdays: weekdays, monthly: monthly, end: end)
    }

    private static func parseMonthly(_ value: JSONValue, field: String) throws(TodoError) -> Monthly {
        let object = try ArgumentObject(value, field: field, allowed: ["mode", "ordinal", "weekday"])
        switch try object.string("mode") ?? "dayOfMonth" {
        case "dayOfMonth":
            for member in ["ordinal", "weekday"] where object[member].map({ !$0.isNull }) == true {
                throw .invalidArgument(object.path(member), "only applies when mode is weekdayOrdinal")
            }
            return .dayOfMonth
        case "weekdayOrdinal":
            guard let ordinalValue = object["ordinal"], !ordinalValue.isNull else {
                throw .invalidArgument(
                    object.path("ordinal"), "required when mode is weekdayOrdinal (1–5, or -1 for last)")
            }
            guard let ordinal = ordinalValue.intValue, ordinals.contains(ordinal) else {
                throw .invalidArgument(object.path("ordinal"), "must be 1, 2, 3, 4, 5, or -1 for the last")
            }
            guard let weekdayValue = object["weekday"], !weekdayValue.isNull else {
                throw .invalidArgument(
                    object.path("weekday"), "required when mode is weekdayOrdinal (1 = Sunday … 7 = Saturday)")
            }
            return .weekdayOrdinal(ordinal: ordinal, weekday: try weekday(weekdayValue, field: object.path("weekday")))
        default:
            throw .invalidArgument(object.path("mode"), "must be dayOfMonth or weekdayOrdinal")
        }
    }

    private static func parseEnd(_ value: JSONValue, field: String) throws(TodoError) -> End {
        let object = try ArgumentObject(value, field: field, allowed: ["kind", "until", "count"])
        let kind = try object.requiredString("kind")
        let untilGiven = object["until"].map { !$0.isNull } == true
        let countGiven = object["count"].map { !$0.isNull } == true
        switch kind {
        case "never":
            if untilGiven { throw .invalidArgument(object.path("until"), "only applies when kind is until") }
            if countGiven { throw .invalidArgument(object.path("count"), "only applies when kind is count") }
            return .never
        case "until":
            if countGiven { throw .invalidArgument(object.path("count"), "only applies when kind is count") }
            guard let date = try object.date("until") else {
                throw .invalidArgument(object.path("until"), "required when kind is until (YYYY-MM-DD)")
            }
            return .until(date)
        case "count":
            if untilGiven { throw .invalidArgument(object.path("until"), "only applies when kind is until") }
            guard let count = try object.int("count", in: counts) else {
                throw .invalidArgument(object.path("count"), "required when kind is count (1–999)")
            }
            return .count(count)
        default:
            throw .invalidArgument(object.path("kind"), "must be never, until or count")
        }
    }

    private static func weekday(_ value: JSONValue, field: String) throws(TodoError) -> Weekday {
        guard let number = value.intValue, let day = Weekday(rawValue: number) else {
            throw .invalidArgument(field, "must be an integer 1–7 (1 = Sunday … 7 = Saturday)")
        }
        return day
    }
}
