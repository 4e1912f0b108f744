import Foundation

/// An `Occurrence` record: the state of one day of a repeating to-do. Record name
/// `<todoId>|<YYYY-MM-DD>`. Last writer wins on `changedAt`.
package struct OccurrenceRecord: Sendable, Equatable {
    /// Record type and field names (configurable; defaults are the app's schema).
    package struct Schema: Sendable, Equatable {
        /// The record type.
        package var recordType = "Occurrence"
        /// The field holding `todoId`.
        package var todoId = "todoId"
        /// The field holding `date`.
        package var date = "date"
        /// The field holding `state`.
        package var state = "state"
        /// The field holding `snoozedUntil`.
        package var snoozedUntil = "snoozedUntil"
        /// The field holding `changedAt`.
        package var changedAt = "changedAt"

        /// The app's schema.
        package init() {}

        var fieldNames: [String] { [todoId, date, state, snoozedUntil, changedAt] }
    }

    /// The to-do this day belongs to.
    package var todoId: String
    /// `YYYY-MM-DD` in the to-do's time zone.
    package var date: String
    /// The server's change tag (nil for a record not saved yet).
    package var changeTag: String?
    /// What happened on that day.
    package var state: State
    /// When the snoozed alarm rings again.
    package var snoozedUntil: Date?
    /// When a writer last changed it (last writer wins).
    package var changedAt: Date?
    /// Fields this schema does not know, carried through writes unchanged.
    package var otherFields: [String: FieldValue]

    /// An occurrence.
    package init(
        todoId: String, date: String, changeTag: String? = nil, state: State, snoozedUntil: Date? = nil,
        changedAt: Date? = nil, otherFields: [String: FieldValue] = [:]
    ) {
        self.todoId = todoId
        self.date = date
        self.changeTag = changeTag
        self.state = state
        self.snoozedUntil = snoozedUntil
        self.changedAt = changedAt
        self.otherFields = otherFields
    }

    /// The record name for a to-do and day.
    package static func recordName(todoId: String, date: String) -> String { "\(todoId)|\(date)" }

    /// This occurrence's record name.
    package var recordName: String { Self.recordName(todoId: todoId, date: date) }

    /// Decodes a record; `todoId` and `date` fall back to the parts of the record name.
    package init(record: Record, schema: Schema = Schema()) throws(CloudKitError) {
        try record.requireType(schema.recordType)
        let parts = record.recordName.split(separator: "|", maxSplits: 1).map(String.init)
        guard let todoId = try record.string(schema.todoId) ?? (parts.count == 2 ? parts[0] : nil),
            let date = try record.string(schema.date) ?? (parts.count == 2 ? parts[1] : nil)
        else {
            throw CloudKitError(.invalidRecord, reason: "occurrence without todoId/date", recordName: record.recordName)
        }
        self.todoId = todoId
        self.date = date
        changeTag = record.recordChangeTag
        state = State(rawValue: try record.string(schema.state) ?? "")
        snoozedUntil = try record.date(schema.snoozedUntil)
        changedAt = try record.date(schema.changedAt)
        otherFields = record.fields(excluding: schema.fieldNames)
    }

    /// The record with every field set.
    package func record(schema: Schema = Schema()) -> Record {
        var record = Record(
            recordName: recordName, recordType: schema.recordType, recordChangeTag: changeTag, fields: otherFields)
        record.set(schema.todoId, todoId)
        record.set(schema.date, date)
        record.set(schema.state, state.rawValue)
        record.set(schema.snoozedUntil, snoozedUntil)
        record.set(schema.changedAt, changedAt)
        return record
    }
}

extension OccurrenceRecord {
    /// `Occurrence.state`. Unknown values from a newer app are kept as they are.
    package struct State: RawRepresentable, Sendable, Hashable {
        /// The value as stored in the record.
        package var rawValue: String
        /// A value; ones this version does not know are kept as they are.
        package init(rawValue: String) { self.rawValue = rawValue }
        /// `done`.
        package static let done = State(rawValue: "done")
        /// `skipped`.
        package static let skipped = State(rawValue: "skipped")
        /// `snoozed`.
        package static let snoozed = State(rawValue: "snoozed")
    }
}
