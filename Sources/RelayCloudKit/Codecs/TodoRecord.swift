import Foundation

/// A `Todo` record (spec/cloudkit.md). Record name: a lowercase UUID.
public struct TodoRecord: Sendable, Equatable {
    /// Record type and field names; every name is configurable, defaults are the app's schema.
    public struct Schema: Sendable, Equatable {
        /// The record type.
        public var recordType = "Todo"
        /// The field holding `title`.
        public var title = "title"
        /// The field holding `notes`.
        public var notes = "notes"
        /// The field holding `dueAt`.
        public var dueAt = "dueAt"
        /// The field holding `timeZone`.
        public var timeZone = "timeZone"
        /// The field holding `sound`.
        public var sound = "sound"
        /// The field holding `repeatRule`.
        public var repeatRule = "repeatRule"
        /// The field holding `status`.
        public var status = "status"
        /// The field holding `snoozedUntil`.
        public var snoozedUntil = "snoozedUntil"
        /// The field holding `completedAt`.
        public var completedAt = "completedAt"
        /// The field holding `deletedAt`.
        public var deletedAt = "deletedAt"
        /// The field holding `source`.
        public var source = "source"
        /// The field holding `createdAt`.
        public var createdAt = "createdAt"
        /// The field holding `changedAt`.
        public var changedAt = "changedAt"

        /// The app's schema.
        public init() {}

        var fieldNames: Set<String> {
            [
                title, notes, dueAt, timeZone, sound, repeatRule, status, snoozedUntil, completedAt, deletedAt, source,
                createdAt, changedAt,
            ]
        }
    }

    /// The record name.
    public var id: String
    /// The server's change tag (nil for a record not saved yet).
    public var changeTag: String?
    /// The to-do text.
    public var title: String
    /// Longer notes.
    public var notes: String?
    /// When the alarm rings.
    public var dueAt: Date?
    /// IANA time zone name.
    public var timeZone: String?
    /// Alarm sound name (tools.md lists them).
    public var sound: String?
    /// JSON of the repeat object (tools.md); nil for a one-off.
    public var repeatRule: String?
    /// `pending`, `done` or `skipped`.
    public var status: Status
    /// When the snoozed alarm rings again.
    public var snoozedUntil: Date?
    /// When it was marked done.
    public var completedAt: Date?
    /// Soft delete: set, never removed by the relay.
    public var deletedAt: Date?
    /// `app` or `mcp`.
    public var source: Source?
    /// When it was created.
    public var createdAt: Date?
    /// When a writer last changed it (last writer wins).
    public var changedAt: Date?
    /// Fields this schema does not know, carried through writes unchanged.
    public var otherFields: [String: FieldValue]

    /// A to-do.
    public init(
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
    public init(record: Record, schema: Schema = Schema()) throws(CloudKitError) {
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
    public func record(schema: Schema = Schema()) -> Record {
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
    public struct Status: RawRepresentable, Sendable, Hashable {
        /// The value as stored in the record.
        public var rawValue: String
        /// A value; ones this version does not know are kept as they are.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `pending`.
        public static let pending = Status(rawValue: "pending")
        /// `done`.
        public static let done = Status(rawValue: "done")
        /// `skipped`.
        public static let skipped = Status(rawValue: "skipped")
    }

    /// `Todo.source`: who created the to-do.
    public struct Source: RawRepresentable, Sendable, Hashable {
        /// The value as stored in the record.
        public var rawValue: String
        /// A value; ones this version does not know are kept as they are.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `app`.
        public static let app = Source(rawValue: "app")
        /// `mcp`.
        public static let mcp = Source(rawValue: "mcp")
    }
}
