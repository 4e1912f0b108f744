import Foundation
import RelayCloudKit

extension Occurrence {
    /// The occurrence a record holds; nil when its date or state is not one this version understands (a
    /// write then replaces it, keeping the record's other fields).
    package init?(record: OccurrenceRecord) {
        guard let date = LocalDate(record.date), let state = OccurrenceState(rawValue: record.state.rawValue) else {
            return nil
        }
        self.init(
            todoId: record.todoId, date: date, state: state, snoozedUntil: record.snoozedUntil,
            changedAt: record.changedAt)
    }
}

extension OccurrenceRecord {
    /// `occurrence` written onto `base` (the stored record, for its change tag and unknown fields), or onto a
    /// new record when there is none. `snoozedUntil` is cleared unless the state is snoozed.
    package init(_ occurrence: Occurrence, base: OccurrenceRecord?) {
        self =
            base
            ?? OccurrenceRecord(
                todoId: occurrence.todoId, date: occurrence.date.description,
                state: State(rawValue: occurrence.state.rawValue))
        todoId = occurrence.todoId
        date = occurrence.date.description
        state = State(rawValue: occurrence.state.rawValue)
        snoozedUntil = occurrence.state == .snoozed ? occurrence.snoozedUntil : nil
        changedAt = occurrence.changedAt
    }
}
