import Foundation

/// The user's `Account` record (record name `account`), with defaults filled in: a missing record or field
/// means UTC, 09:00, no quiet hours, trial not started.
public struct Account: Sendable, Equatable {
    /// The locale the app runs in (`ja_JP`, `en_US`), if known.
    public var locale: String?
    /// Time zone and default time.
    public var rules: TimeRules
    /// Quiet hours, or nil when off.
    public var quietHours: QuietHours?
    /// When the 30-day trial started; nil = not started.
    public var trialStartedAt: Date?
    /// The end of the paid subscription.
    public var subscribedUntil: Date?
    /// The app's own verdict mirrored into the record (`canAddTodos` INT64 0/1), if present.
    public var canAddTodosHint: Bool?
    /// The record's `changedAt`.
    public var changedAt: Date?

    /// An Account from the raw record fields. Malformed values fall back to the defaults (an unknown zone
    /// name → UTC, a bad `defaultTime` → 09:00, quiet hours need both ends valid and different).
    public init(
        locale: String? = nil, timeZone: String? = nil, defaultTime: String? = nil,
        quietHoursStart: String? = nil, quietHoursEnd: String? = nil, trialStartedAt: Date? = nil,
        subscribedUntil: Date? = nil, canAddTodos: Int? = nil, changedAt: Date? = nil
    ) {
        self.locale = locale.flatMap { $0.isEmpty ? nil : $0 }
        rules = TimeRules(zoneName: timeZone, defaultTime: defaultTime.flatMap(LocalTime.init) ?? .nine)
        if let start = quietHoursStart.flatMap(LocalTime.init), let end = quietHoursEnd.flatMap(LocalTime.init) {
            quietHours = QuietHours(start: start, end: end)
        }
        self.trialStartedAt = trialStartedAt
        self.subscribedUntil = subscribedUntil
        canAddTodosHint = canAddTodos.map { $0 != 0 }
        self.changedAt = changedAt
    }

    /// The Account of a user whose record does not exist yet.
    public static let defaults = Account()

    /// Whether descriptions should also be given in Japanese (`locale` starts with `ja`).
    public var prefersJapanese: Bool { locale?.lowercased().hasPrefix("ja") ?? false }
}
