import RelayCloudKit

extension Account {
    /// The Account a record holds, with defaults for anything missing or malformed (an unknown zone name →
    /// UTC, a bad `defaultTime` → 09:00, quiet hours need both ends valid and different).
    package init(record: AccountRecord) {
        self.init(
            locale: record.locale, timeZone: record.timeZone, defaultTime: record.defaultTime,
            quietHoursStart: record.quietHoursStart, quietHoursEnd: record.quietHoursEnd,
            trialStartedAt: record.trialStartedAt, subscribedUntil: record.subscribedUntil,
            canAddTodos: record.canAddTodos.map { $0 ? 1 : 0 }, changedAt: record.changedAt)
    }
}
