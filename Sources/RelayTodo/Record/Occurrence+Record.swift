import Foundation
import RelayJSON

extension Occurrence {
    /// The CloudKit record type.
    public static let recordType = "Occurrence"

    /// An occurrence from an `Occurrence` record's `fields`; nil when `todoId`, `date` or `state` is missing
    /// or malformed (the record name is the fallback for `todoId` and `date`).
    public init?(recordName: String, fields: JSONObject) {
        let nameParts = recordName.split(separator: "|", maxSplits: 1).map(String.init)
        guard let todoId = RecordFields.string(fields, "todoId") ?? nameParts.first,
            let date = (RecordFields.string(fields, "date") ?? nameParts.last).flatMap(LocalDate.init),
            let state = RecordFields.string(fields, "state").flatMap(OccurrenceState.init(rawValue:))
        else { return nil }
        self.init(
            todoId: todoId, date: date, state: state, snoozedUntil: RecordFields.timestamp(fields, "snoozedUntil"),
            changedAt: RecordFields.timestamp(fields, "changedAt"))
    }

    /// The wire `fields` of the whole record (`snoozedUntil` null unless snoozed, so an overwrite clears it).
    public var recordFields: JSONObject {
        [
            "todoId": RecordFields.string(todoId), "date": RecordFields.string(date.description),
            "state": RecordFields.string(state.rawValue), "snoozedUntil": RecordFields.timestamp(snoozedUntil),
            "changedAt": RecordFields.timestamp(changedAt),
        ]
    }
}

extension Account {
    /// The CloudKit record type.
    public static let recordType = "Account"
    /// The record name of the one Account record.
    public static let recordName = "account"

    /// An Account from the `Account` record's `fields`, with defaults for anything missing or malformed.
    public init(fields: JSONObject) {
        self.init(
            locale: RecordFields.string(fields, "locale"), timeZone: RecordFields.string(fields, "timeZone"),
            defaultTime: RecordFields.string(fields, "defaultTime"),
            quietHoursStart: RecordFields.string(fields, "quietHoursStart"),
            quietHoursEnd: RecordFields.string(fields, "quietHoursEnd"),
            trialStartedAt: RecordFields.timestamp(fields, "trialStartedAt"),
            subscribedUntil: RecordFields.timestamp(fields, "subscribedUntil"),
            canAddTodos: RecordFields.int(fields, "canAddTodos"), changedAt: RecordFields.timestamp(fields, "changedAt")
        )
    }
}
