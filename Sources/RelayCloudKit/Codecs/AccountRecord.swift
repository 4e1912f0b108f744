import Foundation

/// The `Account` record (record name `account`): settings the app mirrors so the relay computes
/// "today" and entitlement the same way. A missing record means all defaults.
package struct AccountRecord: Sendable, Equatable {
    /// Record type, record name and field names (configurable; defaults are the app's schema).
    package struct Schema: Sendable, Equatable {
        /// The record type.
        package var recordType = "Account"
        /// The record name.
        package var recordName = "account"
        /// The field holding `locale`.
        package var locale = "locale"
        /// The field holding `timeZone`.
        package var timeZone = "timeZone"
        /// The field holding `defaultTime`.
        package var defaultTime = "defaultTime"
        /// The field holding `quietHoursStart`.
        package var quietHoursStart = "quietHoursStart"
        /// The field holding `quietHoursEnd`.
        package var quietHoursEnd = "quietHoursEnd"
        /// The field holding `trialStartedAt`.
        package var trialStartedAt = "trialStartedAt"
        /// The field holding `subscribedUntil`.
        package var subscribedUntil = "subscribedUntil"
        /// The field holding `canAddTodos`.
        package var canAddTodos = "canAddTodos"
        /// The field holding `changedAt`.
        package var changedAt = "changedAt"

        /// The app's schema.
        package init() {}

        var fieldNames: [String] {
            [
                locale, timeZone, defaultTime, quietHoursStart, quietHoursEnd, trialStartedAt, subscribedUntil,
                canAddTodos, changedAt,
            ]
        }
    }

    /// The server's change tag (nil for a record not saved yet).
    package var changeTag: String?
    /// The app's locale, e.g. `ja_JP`.
    package var locale: String?
    /// IANA time zone name (nil: UTC).
    package var timeZone: String?
    /// `HH:mm` (nil: 09:00).
    package var defaultTime: String?
    /// `HH:mm`; quiet hours may wrap midnight.
    package var quietHoursStart: String?
    /// `HH:mm` end of quiet hours.
    package var quietHoursEnd: String?
    /// When the free trial started.
    package var trialStartedAt: Date?
    /// End of the current subscription.
    package var subscribedUntil: Date?
    /// The app's entitlement hint (INT64 0/1 on the wire).
    package var canAddTodos: Bool?
    /// When a writer last changed it (last writer wins).
    package var changedAt: Date?
    /// Fields this schema does not know, carried through writes unchanged.
    package var otherFields: [String: FieldValue]

    /// An account record.
    package init(
        changeTag: String? = nil, locale: String? = nil, timeZone: String? = nil, defaultTime: String? = nil,
        quietHoursStart: String? = nil, quietHoursEnd: String? = nil, trialStartedAt: Date? = nil,
        subscribedUntil: Date? = nil, canAddTodos: Bool? = nil, changedAt: Date? = nil,
        otherFields: [String: FieldValue] = [:]
    ) {
        self.changeTag = changeTag
        self.locale = locale
        self.timeZone = timeZone
        self.defaultTime = defaultTime
        self.quietHoursStart = quietHoursStart
        self.quietHoursEnd = quietHoursEnd
        self.trialStartedAt = trialStartedAt
        self.subscribedUntil = subscribedUntil
        self.canAddTodos = canAddTodos
        self.changedAt = changedAt
        self.otherFields = otherFields
    }

    /// Decodes the record.
    package init(record: Record, schema: Schema = Schema()) throws(CloudKitError) {
        try record.requireType(schema.recordType)
        changeTag = record.recordChangeTag
        locale = try record.string(schema.locale)
        timeZone = try record.string(schema.timeZone)
        defaultTime = try record.string(schema.defaultTime)
        quietHoursStart = try record.string(schema.quietHoursStart)
        quietHoursEnd = try record.string(schema.quietHoursEnd)
        trialStartedAt = try record.date(schema.trialStartedAt)
        subscribedUntil = try record.date(schema.subscribedUntil)
        canAddTodos = try record.int64(schema.canAddTodos).map { $0 != 0 }
        changedAt = try record.date(schema.changedAt)
        otherFields = record.fields(excluding: schema.fieldNames)
    }

    /// The record with every field set.
    package func record(schema: Schema = Schema()) -> Record {
        var record = Record(
            recordName: schema.recordName, recordType: schema.recordType, recordChangeTag: changeTag,
            fields: otherFields)
        record.set(schema.locale, locale)
        record.set(schema.timeZone, timeZone)
        record.set(schema.defaultTime, defaultTime)
        record.set(schema.quietHoursStart, quietHoursStart)
        record.set(schema.quietHoursEnd, quietHoursEnd)
        record.set(schema.trialStartedAt, trialStartedAt)
        record.set(schema.subscribedUntil, subscribedUntil)
        record.set(schema.canAddTodos, canAddTodos.map { $0 ? 1 : 0 })
        record.set(schema.changedAt, changedAt)
        return record
    }
}

/// The three record schemas together, for configuration.
package struct RecordSchema: Sendable, Equatable {
    /// The `Todo` schema.
    package var todo: TodoRecord.Schema
    /// The `Occurrence` schema.
    package var occurrence: OccurrenceRecord.Schema
    /// The `Account` schema.
    package var account: AccountRecord.Schema

    /// The app's schema, or overrides.
    package init(
        todo: TodoRecord.Schema = .init(),
        occurrence: OccurrenceRecord.Schema = .init(),
        account: AccountRecord.Schema = .init()
    ) {
        self.todo = todo
        self.occurrence = occurrence
        self.account = account
    }
}
