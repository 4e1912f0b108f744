import RelayJSON

extension Todo {
    /// The to-do as tools return it. Instants use the Account offset; a repeating to-do's rule is spelled out
    /// in English (and in Japanese too when the Account locale is Japanese), with its time of day on the
    /// to-do's own wall clock, naming that zone when it is not the Account's.
    package func json(account: Account) -> JSONValue {
        let rules = account.rules
        var object: JSONObject = [
            "id": .string(id), "title": .string(title), "notes": notes.map(JSONValue.string) ?? .null,
            "due": rules.json(dueAt), "timeZone": .string(timeZone ?? rules.zoneName),
            "sound": .string((sound ?? .default).rawValue),
        ]
        if let repeatRule {
            let own = self.rules(account: account)
            let start = dueAt.map { own.wallClock(at: $0) }
            let zone = own.zoneName == rules.zoneName ? nil : own.zoneName
            object["repeat"] = repeatRule.json
            object["repeatDescription"] = .string(repeatRule.englishDescription(start: start, zone: zone))
            if account.prefersJapanese {
                object["repeatDescriptionJa"] = .string(repeatRule.japaneseDescription(start: start, zone: zone))
            }
        } else {
            object["repeat"] = .null
            object["repeatDescription"] = .null
        }
        object["status"] = .string(status.rawValue)
        object["snoozedUntil"] = rules.json(snoozedUntil)
        object["completedAt"] = rules.json(completedAt)
        object["source"] = .string(source.rawValue)
        object["createdAt"] = rules.json(createdAt)
        object["changedAt"] = rules.json(changedAt)
        return .object(object)
    }
}

extension Occurrence {
    /// The occurrence as tools return it.
    package func json(account: Account) -> JSONValue {
        [
            "date": .string(date.description), "state": .string(state.rawValue),
            "snoozedUntil": account.rules.json(snoozedUntil), "changedAt": account.rules.json(changedAt),
        ]
    }
}

extension Account {
    /// `quietHours` as `get_me` and `list_todos` return it: `{start, end}` (`HH:mm`), null when off.
    var quietHoursJSON: JSONValue {
        quietHours.map { ["start": .string($0.start.description), "end": .string($0.end.description)] } ?? .null
    }
}

extension QuietHoursAdjustment {
    /// `{requested, actual, message}`.
    package func json(account: Account) -> JSONValue {
        [
            "requested": .string(account.rules.format(requested)), "actual": .string(account.rules.format(actual)),
            "message": .string(message),
        ]
    }
}

extension Schema {
    /// A to-do in results.
    static let todoProperties: [(String, JSONValue)] = [
        ("id", string()),
        ("title", string()),
        ("notes", string(nullable: true)),
        ("due", string("A repeating to-do: its first occurrence.", nullable: true)),
        ("timeZone", string("The to-do's own zone: repeats ring at due's wall-clock time there.")),
        ("sound", string()),
        ("repeat", repeatOutput),
        ("repeatDescription", string(nullable: true)),
        ("repeatDescriptionJa", string()),
        ("status", string(enumeration: TodoStatus.allCases.map(\.rawValue))),
        ("snoozedUntil", instant),
        ("completedAt", instant),
        ("source", string(enumeration: TodoSource.allCases.map(\.rawValue))),
        ("createdAt", instant),
        ("changedAt", instant),
    ]

    /// Members every to-do in results has.
    static let todoRequired = todoProperties.map(\.0).filter { $0 != "repeatDescriptionJa" }

    /// A to-do in results.
    static let todo = object(todoProperties, required: todoRequired)

    /// An Occurrence in results.
    static let occurrence = object(
        [
            ("date", string()),
            ("state", string(enumeration: OccurrenceState.allCases.map(\.rawValue))),
            ("snoozedUntil", instant),
            ("changedAt", instant),
        ],
        required: ["date", "state", "snoozedUntil", "changedAt"])

    /// `quietHoursAdjusted`.
    static let quietHoursAdjusted = object(
        [
            ("requested", requiredInstant),
            ("actual", requiredInstant),
            ("message", string("Tell the user.")),
        ],
        required: ["requested", "actual", "message"], description: "The time was moved out of quiet hours.")

    /// `dueAligned`.
    static let dueAligned = object(
        [
            ("requested", requiredInstant),
            ("actual", requiredInstant),
            ("message", string("Tell the user.")),
        ],
        required: ["requested", "actual", "message"],
        description: "The first occurrence was moved to the next day the repeat rings on.")

    /// `notices`.
    static let notices = array(of: string(), description: "Things to tell the user, one line each.")
}
