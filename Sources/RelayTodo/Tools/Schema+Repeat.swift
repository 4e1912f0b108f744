import RelayJSON

extension Schema {
    /// The `repeat` argument.
    static func repeatInput(nullable: Bool) -> JSONValue {
        object(
            [
                (
                    "kind",
                    string("none removes repetition.", enumeration: ["none", "daily", "weekly", "monthly", "yearly"])
                ),
                (
                    "interval",
                    integer("Every n-th day/week/month/year: 1 = every, 2 = every other. Default 1.", range: 1...99)
                ),
                ("weekdays", array(of: integer(range: 1...7), description: weekdaysHelp)),
                ("monthly", monthlyInput),
                ("end", endInput),
            ],
            required: ["kind"], closed: true,
            description: "How the alarm repeats; due is the first occurrence and sets the time of day. Sub-fields "
                + "left out take their defaults. Examples: {kind:\"daily\"}; {kind:\"weekly\",weekdays:[2,4]} "
                + "Monday and Wednesday; {kind:\"weekly\",interval:2} every other week; {kind:\"monthly\"} on due's "
                + "day of the month; {kind:\"monthly\",monthly:{mode:\"weekdayOrdinal\",ordinal:-1,weekday:6}} last "
                + "Friday; {kind:\"yearly\"}; {kind:\"daily\",end:{kind:\"count\",count:10}}.",
            nullable: nullable)
    }

    private static let weekdaysHelp =
        "Weekly only. 1 = Sunday, 2 = Monday … 7 = Saturday. Empty or left out = the weekday of due."

    private static let monthlyInput = object(
        [
            (
                "mode",
                string(
                    "dayOfMonth (default): due's day, or the month's last day when it has no such day. "
                        + "weekdayOrdinal: the ordinal-th weekday.", enumeration: ["dayOfMonth", "weekdayOrdinal"])
            ),
            ("ordinal", integer("weekdayOrdinal only: 1–5, or -1 for the last.", values: RepeatRule.ordinals)),
            ("weekday", integer("weekdayOrdinal only: 1 = Sunday … 7 = Saturday.", range: 1...7)),
        ],
        closed: true, description: "Monthly only.")

    private static let endInput = object(
        [
            (
                "kind",
                string(
                    "never (default), until a date, or after count occurrences.",
                    enumeration: ["never", "until", "count"])
            ),
            ("until", date("kind until: the last day (inclusive), YYYY-MM-DD.")),
            ("count", integer("kind count: number of occurrences, counting the first.", range: 1...999)),
        ],
        required: ["kind"], closed: true, description: "When the repetition stops. Default never.")

    /// The canonical rule in results (its members are those of the `repeat` argument).
    static let repeatOutput = object(
        [
            ("kind", string(enumeration: RepeatRule.Kind.allCases.map(\.rawValue))),
            ("interval", integer()),
            ("weekdays", array(of: integer())),
            ("monthly", object([])),
            ("end", object([])),
        ],
        required: ["kind", "interval", "weekdays", "end"], nullable: true)
}
