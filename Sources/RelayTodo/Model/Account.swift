import Foundation

/// The user's `Account` record (record name `account`), with defaults filled in: a missing record or field
/// means UTC, 09:00, no quiet hours, trial not started.
package struct Account: Sendable, Equatable {
    /// The locale the app runs in (`ja_JP`, `en_US`), if known.
    package var locale: String?
    /// Time zone and default time.
    package var rules: TimeRules
    /// Quiet hours, or nil when off.
    package var quietHours: QuietHours?
    /// When the 30-day trial started; nil = not started.
    package var trialStartedAt: Date?
    /// The end of the paid subscription.
    package var subscribedUntil: Date?
    /// The app's own verdict mirrored into the record (`canAddTodos` INT64 0/1), if present.
    package var canAddTodosHint: Bool?
    /// The record's `changedAt`.
    package var changedAt: Date?
    /// What the device wrote that could not be used, one line each (`get_me` reports them): an unknown time zone,
    /// a default time or quiet hours that are not `HH:mm`, a record that does not decode.
    package var warnings: [String] = []

    /// An Account from the raw record fields. Malformed values fall back to the defaults (an unknown zone
    /// name → UTC, a bad `defaultTime` → 09:00, quiet hours need both ends valid and different) and each one
    /// adds a line to `warnings`; equal quiet-hour ends are the app's way of turning them off, not a warning.
    package init(
        locale: String? = nil, timeZone: String? = nil, defaultTime: String? = nil,
        quietHoursStart: String? = nil, quietHoursEnd: String? = nil, trialStartedAt: Date? = nil,
        subscribedUntil: Date? = nil, canAddTodos: Int? = nil, changedAt: Date? = nil
    ) {
        self.locale = locale.flatMap { $0.isEmpty ? nil : $0 }
        let zone = timeZone.flatMap { $0.isEmpty ? nil : $0 }
        let time = defaultTime.flatMap { $0.isEmpty ? nil : $0 }
        rules = TimeRules(zoneName: zone, defaultTime: time.flatMap(LocalTime.init) ?? .nine)
        if let zone, rules.zoneName != zone {
            warnings.append(
                "The MustDo app saved a time zone this server does not know (\(Account.quoted(zone))), so UTC is "
                    + "used for today and for times without an offset.")
        }
        if let time, LocalTime(time) == nil {
            warnings.append(
                "The MustDo app saved a default alarm time that is not HH:mm (\(Account.quoted(time))), so 09:00 is "
                    + "used.")
        }
        let start = quietHoursStart.flatMap { $0.isEmpty ? nil : $0 }
        let end = quietHoursEnd.flatMap { $0.isEmpty ? nil : $0 }
        if let startTime = start.flatMap(LocalTime.init), let endTime = end.flatMap(LocalTime.init) {
            quietHours = QuietHours(start: startTime, end: endTime)
        } else if start != nil || end != nil {
            warnings.append(
                "The MustDo app saved quiet hours that are incomplete or not HH:mm (start "
                    + "\(start.map(Account.quoted) ?? "missing"), end \(end.map(Account.quoted) ?? "missing")), so "
                    + "no quiet hours are applied.")
        }
        self.trialStartedAt = trialStartedAt
        self.subscribedUntil = subscribedUntil
        // The app mirrors a 0/1 verdict; another value is not one, so the trial and subscription decide (issue 42).
        if let canAddTodos, canAddTodos != 0, canAddTodos != 1 {
            warnings.append(
                "The MustDo app saved canAddTodos as \(canAddTodos), which is neither 0 nor 1, so it is ignored: the "
                    + "trial and subscription dates decide whether to-dos can be added.")
        } else {
            canAddTodosHint = canAddTodos.map { $0 == 1 }
        }
        self.changedAt = changedAt
    }

    /// `value` in quotes when it is short printable ASCII, else a neutral stand-in: a badly written field must
    /// not put control characters or a long string into a result.
    static func quoted(_ value: String) -> String {
        let printable = value.utf8.count <= 64 && value.utf8.allSatisfy { (0x20...0x7E).contains($0) }
        return printable ? "\"\(value)\"" : "an unreadable value"
    }

    /// The Account of a user whose record does not exist yet.
    package static let defaults = Account()

    /// Whether descriptions should also be given in Japanese (`locale` starts with `ja`).
    package var prefersJapanese: Bool { locale?.lowercased().hasPrefix("ja") ?? false }
}
