import Foundation
import RelayJSON

/// `update_todo`: changes the fields passed, and only those.
package enum UpdateTodo {
    /// A field that can be left alone, set, or cleared.
    package enum Patch<Value: Sendable & Equatable>: Sendable, Equatable {
        /// Not passed.
        case keep
        /// Passed with a value.
        case set(Value)
        /// Passed as null (or, for `repeat`, `{kind: "none"}`).
        case clear
    }

    /// Validated arguments.
    package struct Request: Sendable, Equatable {
        /// The to-do.
        package var id: String
        /// A new title.
        package var title: String?
        /// A new due time.
        package var due: TimeInput?
        /// Notes: `null` or "" clears.
        package var notes: Patch<String>
        /// A new sound.
        package var sound: Sound?
        /// The whole rule is replaced; `.clear` makes the to-do one-off.
        package var repeatRule: Patch<RepeatRule>
        /// One-off to-dos only.
        package var status: TodoStatus?

        /// A request with every part given.
        package init(
            id: String, title: String? = nil, due: TimeInput? = nil, notes: Patch<String> = .keep, sound: Sound? = nil,
            repeatRule: Patch<RepeatRule> = .keep, status: TodoStatus? = nil
        ) {
            self.id = id
            self.title = title
            self.due = due
            self.notes = notes
            self.sound = sound
            self.repeatRule = repeatRule
            self.status = status
        }
    }

    /// The write and what happened to the due time on the way.
    package struct Updated: Sendable, Equatable {
        /// What to save (may be empty: the to-do already had these values).
        package let change: TodoChange
        /// Set when the due time was moved out of quiet hours.
        package let quietHoursAdjusted: QuietHoursAdjustment?
        /// Set when a repeat's first occurrence was moved to a day the rule lists.
        package let dueAligned: QuietHoursAdjustment?
        /// Lines for the user: a time the clocks skip, a due time already past, a done one-off now repeating.
        package let notices: [String]

        /// An update with every part given.
        package init(
            change: TodoChange, quietHoursAdjusted: QuietHoursAdjustment? = nil,
            dueAligned: QuietHoursAdjustment? = nil, notices: [String] = []
        ) {
            self.change = change
            self.quietHoursAdjusted = quietHoursAdjusted
            self.dueAligned = dueAligned
            self.notices = notices
        }
    }

    /// Validates the arguments (no I/O, no Account needed). At least one field besides `id` is required.
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> Request {
        let object = try ArgumentObject(
            arguments, field: "", allowed: ["id", "title", "due", "notes", "sound", "repeat", "status"])
        var request = Request(id: try object.id())
        request.title = try object.text("title", maxLength: 200)
        request.due = try object.time("due")
        if object.isNull("notes") {
            request.notes = .clear
        } else if let notes = try object.text("notes", maxLength: 4000, allowEmpty: true, multiline: true) {
            request.notes = notes.isEmpty ? .clear : .set(notes)
        }
        request.sound = try object.choice("sound", of: Sound.self)
        if let value = object["repeat"] {
            request.repeatRule = try RepeatRule.parse(value).map(Patch.set) ?? .clear
        }
        request.status = try object.choice("status", of: TodoStatus.self)
        if request == Request(id: request.id) {
            throw TodoError(
                code: .invalidArgument,
                message: "Nothing to change: pass at least one of title, due, notes, sound, "
                    + "repeat, status.")
        }
        return request
    }
}
