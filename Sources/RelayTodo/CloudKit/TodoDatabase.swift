import Foundation
import RelayCloudKit

/// One person's to-do records in their CloudKit private database, reached through their session (one call
/// at a time, token rotation handled there). Reads here; writes in `TodoDatabase+Writes.swift`.
///
/// Listings (many to-dos at once) are in `TodoDatabase+Listing.swift`; their queries (`TodoQueries`) need the
/// indexes `deploy/cloudkit/schema.ckdb` declares. A zone that does not exist yet (the app never synced) reads as
/// empty.
struct TodoDatabase: Sendable {
    let environment: TodoToolEnvironment
    let session: any CloudKitSession
    /// The person the call is for (`TodoPrincipal.cursorOwner`): `list_todos` cursors are bound to them.
    var owner = ""
    /// What seals and checks this person's `list_todos` cursors.
    var cursorSeal: CursorSeal { CursorSeal(key: environment.cursorKey, owner: owner) }
    var client: CloudKitClient { environment.client }
    var schema: RecordSchema { environment.schema }

    /// What one lookup found for a tool call: the Account, the to-do (nil when missing or not a `Todo`) and
    /// the Occurrence records found, by record name.
    struct Snapshot {
        var account: Account
        var todo: TodoRecord?
        var occurrences: [String: OccurrenceRecord]
    }

    /// The Account and, in the same CloudKit call, the to-do `id` and the Occurrences named `occurrences`.
    func snapshot(id: String? = nil, occurrences: [String] = []) async throws(CloudKitError) -> Snapshot {
        let accountName = schema.account.recordName
        var names = [accountName]
        for name in (id.map { [$0] } ?? []) + occurrences where !names.contains(name) { names.append(name) }
        return try snapshot(of: try await lookup(names), accountName: accountName, id: id, occurrences: occurrences)
    }

    /// The decoding half of `snapshot(id:occurrences:)`.
    private func snapshot(
        of found: [String: Record], accountName: String, id: String?, occurrences: [String]
    ) throws(CloudKitError) -> Snapshot {
        var snapshot = Snapshot(account: account(found[accountName]), todo: nil, occurrences: [:])
        if let id, let record = found[id] { snapshot.todo = try todo(record) }
        for name in occurrences {
            guard let record = found[name], record.recordType == schema.occurrence.recordType else { continue }
            snapshot.occurrences[name] = try OccurrenceRecord(record: record, schema: schema.occurrence)
        }
        return snapshot
    }

    /// The records named `names` that exist, by record name.
    func lookup(_ names: [String]) async throws(CloudKitError) -> [String: Record] {
        let results: [RecordResult]
        do throws(CloudKitError) {
            results = try await session.perform { token throws(CloudKitError) in
                try await client.lookup(names, token: token)
            }
        } catch {
            guard error.kind == .zoneNotFound else { throw error }
            return [:]
        }
        return try Self.records(in: results)
    }

    /// The records found, by name: deleted and missing ones left out, any other failure thrown.
    private static func records(in results: [RecordResult]) throws(CloudKitError) -> [String: Record] {
        var found: [String: Record] = [:]
        for result in results {
            switch result {
            case .record(let record): found[record.recordName] = record
            case .deleted: continue
            case .failure(let error) where error.kind == .notFound || error.kind == .zoneNotFound: continue
            case .failure(let error): throw error
            }
        }
        return found
    }

    /// The Account in `record`; defaults when there is none, and defaults with a warning when it does not decode
    /// (a field of another type than the schema's), which `get_me` reports.
    func account(_ record: Record?) -> Account {
        guard let record else { return .defaults }
        guard let decoded = try? AccountRecord(record: record, schema: schema.account) else {
            var account = Account.defaults
            account.warnings.append(
                "The MustDo app's Account record could not be read (a field has an unexpected type), so the "
                    + "defaults are used: UTC, 09:00, no quiet hours, adding allowed.")
            return account
        }
        return Account(record: decoded)
    }

    /// The to-do in `record`, nil when the record is not a `Todo` (an id naming the Account or an Occurrence).
    /// A `Todo` whose fields have the wrong types is an `.invalidRecord` error: the relay will not write it.
    func todo(_ record: Record) throws(CloudKitError) -> TodoRecord? {
        guard record.recordType == schema.todo.recordType else { return nil }
        return try TodoRecord(record: record, schema: schema.todo)
    }
}
