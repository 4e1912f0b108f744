import Foundation

/// A write to an existing `Todo` record: the new value and the fields that differ from the value it was
/// computed from. The CloudKit write changes only `fields` on the record as read (a `replace` with the
/// record's `recordChangeTag`); after a CONFLICT, `Merge` re-applies exactly these fields to the server copy.
package struct TodoChange: Sendable, Equatable {
    /// The to-do after the change.
    package let todo: Todo
    /// The record fields to write; empty = nothing to save. Includes `changedAt` whenever non-empty.
    package let fields: Set<TodoField>

    /// The change from `old` to `new`, stamping `changedAt = now` when anything differs.
    package init(from old: Todo, to new: Todo, now: Date) {
        var todo = new
        var fields = Set(TodoField.allCases.filter { old.value(of: $0) != new.value(of: $0) })
        fields.remove(.changedAt)
        if !fields.isEmpty {
            todo.changedAt = now
            fields.insert(.changedAt)
        }
        self.todo = todo
        self.fields = fields
    }

    /// A change with every part given.
    package init(todo: Todo, fields: Set<TodoField>) {
        self.todo = todo
        self.fields = fields
    }

    /// Whether there is nothing to write.
    package var isEmpty: Bool { fields.isEmpty }

    /// The written field names in schema order, for results.
    package var fieldNames: [String] { fields.sorted().map(\.rawValue) }
}

extension Todo {
    /// A comparable stand-in for one field's value.
    func value(of field: TodoField) -> FieldValue {
        switch field {
        case .title: .text(title)
        case .notes: .text(notes)
        case .dueAt: .time(dueAt)
        case .timeZone: .text(timeZone)
        case .sound: .text(sound?.rawValue)
        case .repeatRule: .text(repeatRule?.recordValue)
        case .status: .text(status.rawValue)
        case .snoozedUntil: .time(snoozedUntil)
        case .completedAt: .time(completedAt)
        case .deletedAt: .time(deletedAt)
        case .source: .text(source.rawValue)
        case .createdAt: .time(createdAt)
        case .changedAt: .time(changedAt)
        }
    }

    /// This to-do with `fields` taken from `other`.
    func copying(_ fields: Set<TodoField>, from other: Todo) -> Todo {
        var copy = self
        for field in fields {
            switch field {
            case .title: copy.title = other.title
            case .notes: copy.notes = other.notes
            case .dueAt: copy.dueAt = other.dueAt
            case .timeZone: copy.timeZone = other.timeZone
            case .sound: copy.sound = other.sound
            case .repeatRule: copy.repeatRule = other.repeatRule
            case .status: copy.status = other.status
            case .snoozedUntil: copy.snoozedUntil = other.snoozedUntil
            case .completedAt: copy.completedAt = other.completedAt
            case .deletedAt: copy.deletedAt = other.deletedAt
            case .source: copy.source = other.source
            case .createdAt: copy.createdAt = other.createdAt
            case .changedAt: copy.changedAt = other.changedAt
            }
        }
        return copy
    }
}

/// One field's value, for change detection.
enum FieldValue: Equatable {
    case text(String?)
    case time(Date?)
}
