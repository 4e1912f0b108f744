import Foundation

/// An `Occurrence` record: the state of one day of a repeating to-do. Record name `<todoId>|<YYYY-MM-DD>`;
/// last writer wins on `changedAt`.
package struct Occurrence: Sendable, Equatable {
    /// The repeating to-do's id.
    package var todoId: String
    /// The occurrence's date in the to-do's time zone.
    package var date: LocalDate
    /// done, skipped or snoozed.
    package var state: OccurrenceState
    /// For `snoozed`: when it rings again.
    package var snoozedUntil: Date?
    /// When this state was set.
    package var changedAt: Date?

    /// An occurrence with every field given.
    package init(
        todoId: String, date: LocalDate, state: OccurrenceState, snoozedUntil: Date? = nil, changedAt: Date? = nil
    ) {
        self.todoId = todoId
        self.date = date
        self.state = state
        self.snoozedUntil = snoozedUntil
        self.changedAt = changedAt
    }

    /// `<todoId>|<YYYY-MM-DD>`.
    package var recordName: String { Occurrence.recordName(todoId: todoId, date: date) }

    /// The record name of the occurrence of `todoId` on `date`.
    package static func recordName(todoId: String, date: LocalDate) -> String { "\(todoId)|\(date)" }
}

/// `Occurrence.state`.
package enum OccurrenceState: String, Sendable, CaseIterable {
    /// Done for that day.
    case done
    /// Skipped for that day.
    case skipped
    /// Postponed to `snoozedUntil`.
    case snoozed
}
