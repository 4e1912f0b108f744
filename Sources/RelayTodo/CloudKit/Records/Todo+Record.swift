import Foundation
import RelayCloudKit

// The one path between CloudKit records and the domain: RelayCloudKit's typed codecs (`TodoRecord`,
// `OccurrenceRecord`, `AccountRecord`, schema-configurable, strict about field types) read the wire; these
// extensions turn their values into domain values and write domain changes back onto the record that was read,
// so values and fields this version does not understand survive every write.

extension Todo {
    /// The to-do a record holds. Values this version does not know are read leniently: an unknown status is
    /// pending, an unknown source is app, an unknown sound is nil, a repeat rule is read member by member
    /// (`RepeatRule(recordValue:)`). Writes never send these guesses back unless the call changes that field.
    package init(record: TodoRecord) {
        self.init(
            id: record.id, title: record.title, notes: record.notes.flatMap { $0.isEmpty ? nil : $0 },
            dueAt: record.dueAt, timeZone: record.timeZone, sound: record.sound.flatMap(Sound.init(rawValue:)),
            repeatRule: record.repeatRule.flatMap(RepeatRule.init(recordValue:)),
            status: TodoStatus(rawValue: record.status.rawValue) ?? .pending, snoozedUntil: record.snoozedUntil,
            completedAt: record.completedAt, deletedAt: record.deletedAt,
            source: record.source.flatMap { TodoSource(rawValue: $0.rawValue) } ?? .app, createdAt: record.createdAt,
            changedAt: record.changedAt)
    }
}

extension TodoRecord {
    /// A record for a to-do the relay creates (no change tag: it is written with `create`).
    package init(creating todo: Todo) {
        self = TodoRecord(id: todo.id, title: todo.title).applying(Set(TodoField.allCases), from: todo)
    }

    /// This record with `fields` set from `todo`. Everything else (other fields, values this version reads
    /// leniently, fields it does not know, the change tag) stays as read, so a `replace` of the result changes
    /// exactly `fields`. A field whose new value is nil is left out of the record, which `replace` clears.
    package func applying(_ fields: Set<TodoField>, from todo: Todo) -> TodoRecord {
        var record = self
        for field in fields {
            switch field {
            case .title: record.title = todo.title
            case .notes: record.notes = todo.notes
            case .dueAt: record.dueAt = todo.dueAt
            case .timeZone: record.timeZone = todo.timeZone
            case .sound: record.sound = todo.sound?.rawValue
            case .repeatRule: record.repeatRule = todo.repeatRule?.recordValue
            case .status: record.status = Status(rawValue: todo.status.rawValue)
            case .snoozedUntil: record.snoozedUntil = todo.snoozedUntil
            case .completedAt: record.completedAt = todo.completedAt
            case .deletedAt: record.deletedAt = todo.deletedAt
            case .source: record.source = Source(rawValue: todo.source.rawValue)
            case .createdAt: record.createdAt = todo.createdAt
            case .changedAt: record.changedAt = todo.changedAt
            }
        }
        return record
    }
}
