import Foundation

/// A `Todo` record (its fields: `deploy/cloudkit/schema.ckdb`, docs/cloudkit-emulator.md). Record name: a lowercase
/// UUID.
package struct TodoRecord: Sendable, Equatable {
    /// Record type and field names; every name is configurable, defaults are the app's schema.
    package struct Schema: Sendable, Equatable {
        /// The record type.
        package var recordType = "Todo"
        /// The field holding `title`.
        package var title = "title"
        /// The field holding `notes`.
        package var notes = "notes"
        /// The field holding `dueAt`.
        package var dueAt = "dueAt"
        /// The field holding `timeZone`.
        package var timeZone = "timeZone"
        /// The field holding `sound`.
        package var sound = "sound"
        /// The field holding `repeatRule`.
        package var repeatRule = "repeatRule"
        /// The field holding `status`.
        package var status = "status"
        /// The field holding `snoozedUntil`.
        package var snoozedUntil = "snoozedUntil"
        /// The field holding `completedAt`.
        package var completedAt = "completedAt"
        /// The field holding `deletedAt`.
        package var deletedAt = "deletedAt"
        /// The field holding `source`.
        package var source = "source"
        /// The field holding `createdAt`.
        package var createdAt = "createdAt"
        /// The field holding `changedAt`.
        package var changedAt = "changedAt"

        /// The app's schema.
        package init() {}

        var fieldNames: [String] {
            [
                title, notes, dueAt, timeZone, sound, repeatRule, status, snoozedUntil, completedAt, deletedAt, source,
                createdAt, changedAt,
            ]
        }
    }

    /// The record name.
    package var id: String
    /// The server's change tag (nil for a record not saved yet).
    package var changeTag: String?
    /// The to-do text.
    package var title: String
    /// Longer notes.
    package var notes: String?
    /// When the alarm rings.
    package var dueAt: Date?
    /// IANA time zone name.
    package var timeZone: String?
    /// Alarm sound name (tools.md lists them).
    package var sound: String?
    /// JSON of the repeat object (tools.md); nil for a one-off.
    package var repeatRule: String?
    /// `pending`, `done` or `skipped`.
    package var status: Status
    /// When the snoozed alarm rings again.
    package var snoozedUntil: Date?
    /// When it was marked done.
    package var completedAt: Date?
    /// Soft delete: set, never removed by the relay.
    package var deletedAt: Date?
    /// `app` or `mcp`.
    package var source: Source?
    /// When it was created.
    package var createdAt: Date?
    /// When a writer last changed it (last writer wins).
    package var changedAt: Date?
    /// Fields this schema does not know, carried through writes unchanged.
    package var otherFields: [String: FieldValue]

    /// A to-do.
    package init(
        id: String, changeTag: String? = nil, title: String, notes: String? = nil, dueAt: Date? = nil,
        timeZone: String? = nil, sound: String? = nil, repeatRule: String? = nil, status: Status = .pending,
        snoozedUntil: Date? = nil, completedAt: Date? = nil, deletedAt: Date? = nil, source: Source? = nil,
        createdAt: Date? = nil, changedAt: Date? = nil, otherFields: [String: FieldValue] = [:]
    ) {
        self.id = id
        self.changeTag = changeTag
        self.title = title
        self.notes = notes
        self.dueAt = dueAt
        self.timeZone = timeZone
        self.sound = sound
        self.repeatRule = repeatRule
        self.status = status
        self.snoozedUntil = snoozedUntil
        self.completedAt = completedAt
        self.deletedAt = deletedAt
        self.source = source
        self.createdAt = createdAt
        self.changedAt = changedAt
        self.otherFields = otherFields
    }

    /// Decodes a record; a missing title reads as empty, a missing status as pending.
    package init(record: Record, schema: Schema = Schema()) throws(CloudKitError) {
        try record.requireType(schema.recordType)
        id = record.recordName
        changeTag = record.recordChangeTag
        title = try record.string(schema.title) ?? ""
        notes = try record.string(schema.notes)
        dueAt = try record.date(schema.dueAt)
        timeZone = try record.string(schema.timeZone)
        sound = try record.string(schema.sound)
        repeatRule = try record.string(schema.repeatRule)
        status = try record.string(schema.status).map(Status.init(rawValue:)) ?? .pending
        snoozedUntil = try record.date(schema.snoozedUntil)
        completedAt = try record.date(schema.completedAt)
        deletedAt = try record.date(schema.deletedAt)
        source = try record.string(schema.source).map(Source.init(rawValue:))
        createdAt = try record.date(schema.createdAt)
        changedAt = try record.date(schema.changedAt)
        otherFields = record.fields(excluding: schema.fieldNames)
    }

    /// The record with every field set (absent optionals left out, so `replace` clears them).
    package func record(schema: Schema = Schema()) -> Record {
        var record = Record(
            recordName: id, recordType: schema.recordType, recordChangeTag: changeTag, fields: otherFields)
        record.set(schema.title, title)
        record.set(schema.notes, notes)
        record.set(schema.dueAt, dueAt)
        record.set(schema.timeZone, timeZone)
        record.set(schema.sound, sound)
        record.set(schema.repeatRule, repeatRule)
        record.set(schema.status, status.rawValue)
        record.set(schema.snoozedUntil, snoozedUntil)
        record.set(schema.completedAt, completedAt)
        record.set(schema.deletedAt, deletedAt)
        record.set(schema.source, source?.rawValue)
        record.set(schema.createdAt, createdAt)
        record.set(schema.changedAt, changedAt)
        return record
    }
}

extension TodoRecord {
    /// `Todo.status`. Unknown values from a newer app are kept as they are.
    package struct Status: RawRepresentable, Sendable, Hashable {
        /// The value as stored in the record.
        package var rawValue: String
        /// A value; ones this version does not know are kept as they are.
        package init(rawValue: String) { self.rawValue = rawValue }
        /// `pending`.
        package static let pending = Status(rawValue: "pending")
        /// `done`.
        package static let done = Status(rawValue: "done")
        /// `skipped`.
        package static let skipped = Status(rawValue: "skipped")
    }

    /// `Todo.source`: who created the to-do.
    package struct Source: RawRepresentable, Sendable, Hashable {
        /// The value as stored in the record.
        package var rawValue: String
        /// A value; ones this version does not know are kept as they are.
        package init(rawValue: String) { self.rawValue = rawValue }
        /// `app`.
        package static let app = Source(rawValue: "app")
        /// `mcp`.
        package static let mcp = Source(rawValue: "mcp")
    }
}
