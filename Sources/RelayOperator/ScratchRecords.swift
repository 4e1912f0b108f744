import Foundation
import RelayCloudKit
import RelayService

/// The records `cloudkit check` writes and deletes at once: one of each type the relay writes, with every field
/// the relay's codecs can set, so CloudKit's production schema has to accept each field. The to-do is already
/// soft-deleted and its alarm long past, so an app that syncs it before the delete shows nothing.
struct ScratchRecords {
    let schema: RecordSchema
    let todoID = "mustdo-relay-check-" + UUID().uuidString.lowercased()

    /// A `Todo` with every field set.
    var todo: Record {
        let past = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01: never rings
        let todo = TodoRecord(
            id: todoID, title: "mustdo-relayctl cloudkit check (safe to delete)", notes: "scratch record",
            dueAt: past, timeZone: "UTC", sound: "default", repeatRule: #"{"frequency":"daily"}"#, status: .done,
            snoozedUntil: past, completedAt: past, deletedAt: past, source: .mcp, createdAt: past, changedAt: past)
        return todo.record(schema: schema.todo)
    }

    /// An `Occurrence` of that to-do with every field set.
    var occurrence: Record {
        let past = Date(timeIntervalSince1970: 946_684_800)
        let occurrence = OccurrenceRecord(
            todoId: todoID, date: "2000-01-01", state: .done, snoozedUntil: past, changedAt: past)
        return occurrence.record(schema: schema.occurrence)
    }
}
