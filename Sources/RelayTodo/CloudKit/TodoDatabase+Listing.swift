import RelayCloudKit

/// Reading many to-dos at once (`list_todos`, `search`): complete whatever the history holds, right after a
/// write, within a stated number of CloudKit calls, and saying so when that number was not enough.
///
/// 1. The zone's newest changes, newest first (`changes/zone` with `reverse: true`, one page): the change feed is
///    not behind the writes as query indexes are ("Query indexes update asynchronously", CKQueryOperation; WS
///    QueryingRecords points to `changes/zone` and `records/lookup` for what was just written). Its records are
///    current and override what a query returns, so a write made a moment ago, through any instance of the
///    relay or by the app, shows at once, and nothing is stored by the relay to do it. When the feed has no
///    more (`moreComing` false), its page is the whole zone and no query is needed at all.
/// 2. The Account, from that page or by `records/lookup`.
/// 3. The to-dos, by `TodoQueries.todos`: live ones (no `deletedAt`) sorted to one end, read until the first
///    soft-deleted one, from the other end too when the first record read is soft-deleted (Apple documents
///    neither where records without the sort field go nor a filter for them). At most `maxQueryPages` calls.
struct Listing {
    /// The Account (defaults when it has no record).
    var account: Account
    /// The live to-dos read, by record name, each the newest version seen. A soft-deleted one is left out before
    /// it is decoded (no answer shows it, and a long history brings hundreds of them on every call).
    var todos: [String: TodoRecord] = [:]
    /// The Occurrence records among the newest changes, by record name (current; they override a query's).
    var recentOccurrences: [String: OccurrenceRecord] = [:]
    /// Whether the feed page was the whole zone (then `recentOccurrences` holds every Occurrence).
    var everything = false
    /// What could not be read: empty when the listing is complete.
    var gaps: [Gap] = []
    /// CloudKit calls made.
    var calls = 0

    /// Why a listing is not complete.
    enum Gap: Equatable {
        /// The to-do query reached `TodoDatabase.maxQueryPages` before its end.
        case todosCut
        /// The Occurrence query reached `TodoDatabase.maxOccurrencePages` before its end.
        case occurrencesCut
        /// The change feed did not return the newest changes first, so a change of the last seconds may be
        /// missing while the query indexes catch up.
        case recentUnknown
    }
}

extension TodoDatabase {
    /// Records read from the newest end of the change feed (one page, CloudKit's maximum).
    static let recentChanges = 200
    /// Most `records/query` pages one listing reads for its to-dos (10,000 records at 200 a page, 2,000 at the
    /// 100 seen live). Live to-dos come first, so only an account with this many live ones reaches it.
    static let maxQueryPages = 20
    /// Most `records/query` pages one listing reads for Occurrences.
    static let maxOccurrencePages = 5

    /// The Account, the to-dos with a status in one of `groups` (a nil group: any status; each group is one
    /// query, read in order within one budget of `maxQueryPages`) and the newest changes (see `Listing`).
    func listing(groups: [[String]?]) async throws(CloudKitError) -> Listing {
        let accountName = schema.account.recordName
        let recent: ZoneChanges
        do throws(CloudKitError) {
            recent = try await session.perform { token throws(CloudKitError) in
                try await client.zoneChanges(
                    syncToken: nil, resultsLimit: Self.recentChanges, reverse: true,
                    recordTypes: [schema.todo.recordType, schema.occurrence.recordType, schema.account.recordType],
                    token: token)
            }
        } catch {
            guard error.kind == .zoneNotFound else { throw error }
            return Listing(account: .defaults, everything: true, calls: 1)
        }
        var listing = Listing(account: .defaults, everything: !recent.moreComing, calls: 1)
        var accountRecord: Record?
        var feed: [String: Record] = [:]
        feed.reserveCapacity(recent.changes.count)
        var removed: Set<String> = []
        for change in recent.changes {
            switch change {
            case .record(let record) where record.recordName == accountName: accountRecord = record
            case .record(let record): feed[record.recordName] = record
            case .deleted(let name): removed.insert(name)
            case .failure(let error): throw error
            }
        }
        if !listing.everything, !Self.newestFirst(recent.changes) { listing.gaps.append(.recentUnknown) }
        // The Account: on the page, remembered and shown unchanged by the page, or looked up (`ListingMemory`).
        let memoryKey = recent.ownerRecordName.map { "\(owner)\n\($0)" }
        let memory = environment.listingMemory
        if let accountRecord {
            listing.account = account(accountRecord)
        } else if !listing.everything && !removed.contains(accountName) {
            if !listing.gaps.contains(.recentUnknown), let memoryKey,
                let remembered = memory.account(for: memoryKey, accountName: accountName, changes: recent.changes)
            {
                listing.account = remembered
            } else {
                listing.account = try await snapshot().account
                listing.calls += 1
            }
        }
        if !listing.everything {
            let oldest = recent.changes.compactMap { $0.record?.modifiedAt }.min()
            var pagesLeft = Self.maxQueryPages
            for statuses in groups {
                let run = try await liveTodos(statuses: statuses, maxPages: pagesLeft)
                listing.calls += run.pages
                pagesLeft -= run.pages
                if !run.complete, !listing.gaps.contains(.todosCut) { listing.gaps.append(.todosCut) }
                // Newest first, every record changed after the page's oldest is on it; one that is not means
                // the feed was read from its other end.
                if !listing.gaps.contains(.recentUnknown), let oldest,
                    run.records.contains(where: {
                        ($0.modifiedAt ?? 0) > oldest && feed[$0.recordName] == nil && !removed.contains($0.recordName)
                    })
                {
                    listing.gaps.append(.recentUnknown)
                }
                for record in run.records where !removed.contains(record.recordName) {
                    if let newer = feed[record.recordName], (newer.modifiedAt ?? 0) >= (record.modifiedAt ?? 0) {
                        continue
                    }
                    feed[record.recordName] = record
                }
            }
        }
        // Remembered only from a page that proved newest first, as the marker's reading needs.
        if let memoryKey, !listing.gaps.contains(.recentUnknown) {
            memory.remember(listing.account, for: memoryKey, changes: recent.changes)
        }
        for record in feed.values {
            if record.recordType == schema.todo.recordType {
                if record.fields[schema.todo.deletedAt] == nil,
                    let todo = try? TodoRecord(record: record, schema: schema.todo)
                {
                    listing.todos[record.recordName] = todo
                }
            } else if record.recordType == schema.occurrence.recordType {
                if let occurrence = try? OccurrenceRecord(record: record, schema: schema.occurrence) {
                    listing.recentOccurrences[record.recordName] = occurrence
                }
            }
        }
        if !groups.contains(where: { $0 == nil }) {
            let statuses = Set(groups.compactMap { $0 }.joined())
            listing.todos = listing.todos.filter { statuses.contains($0.value.status.rawValue) }
        }
        return listing
    }

    /// The Occurrence records of the to-dos `ids` dated from `from` to `to`, with what the listing's feed page
    /// holds laid over them (newer), and whether the query read them all (false: `maxOccurrencePages` reached).
    func occurrences(
        of ids: [String], from: LocalDate?, to: LocalDate?, listing: Listing
    ) async throws(CloudKitError) -> (occurrences: [OccurrenceRecord], complete: Bool, calls: Int) {
        var byName: [String: OccurrenceRecord] = [:]
        var complete = true
        var calls = 0
        let wanted = Set(ids)
        if !listing.everything && !ids.isEmpty {
            let run = try await queryRun(
                TodoQueries.occurrences(of: ids, from: from, to: to, schema), maxPages: Self.maxOccurrencePages)
            calls = run.pages
            complete = run.complete
            for record in run.records {
                if let occurrence = try? OccurrenceRecord(record: record, schema: schema.occurrence) {
                    byName[record.recordName] = occurrence
                }
            }
        }
        for (name, occurrence) in listing.recentOccurrences where wanted.contains(occurrence.todoId) {
            byName[name] = occurrence
        }
        return (Array(byName.values), complete, calls)
    }

    /// The live to-dos' records with one of `statuses` (soft-deleted ones may come along), `complete` false when
    /// `maxPages` ran out first. The query sorted by `deletedAt` puts every record without it at one end when
    /// CloudKit includes such records (Apple documents neither that nor the end), so the live ones are read from
    /// that end until the first soft-deleted one: ascending first, then descending when the first record read
    /// has `deletedAt` (or nothing came). When neither end starts with a live record and CloudKit has not been seen
    /// to include records without the sort field (`ListingMemory`), it may leave them out: then the query without
    /// a sort (`status` only, which every record matches whatever its `deletedAt`) is read to its end.
    private func liveTodos(statuses: [String]?, maxPages: Int) async throws(CloudKitError) -> QueryRun {
        let deletedAt = schema.todo.deletedAt
        let isDeleted: (Record) -> Bool = { $0.fields[deletedAt] != nil }
        let enough: ([Record], [Record]) -> Bool = { all, page in
            guard let first = all.first, !isDeleted(first) else { return true }
            return page.contains(where: isDeleted)
        }
        let memory = environment.listingMemory
        let known = memory.missingSortField
        let directions: [Bool] =
            switch known {
            case .first: [true]
            case .last: [false]
            case .unknown, .included: [true, false]
            }
        var run = QueryRun()
        for ascending in directions {
            let part = try await queryRun(
                TodoQueries.todos(statuses: statuses, schema, ascending: ascending), maxPages: maxPages - run.pages,
                enough: enough)
            run.records += part.records
            run.pages += part.pages
            run.complete = part.complete || part.stopped
            guard let first = part.records.first, !isDeleted(first) else {
                // No live record at this end (or the budget is spent: `complete` false).
                if !run.complete { return run }
                continue
            }
            memory.saw(ascending: ascending, missingFirst: true, withField: part.records.contains(where: isDeleted))
            return run
        }
        guard known == .unknown, run.complete else { return run }
        let scan = try await queryRun(
            TodoQueries.todos(statuses: statuses, schema, sorted: false), maxPages: maxPages - run.pages)
        run.records += scan.records
        run.pages += scan.pages
        run.complete = scan.complete
        return run
    }

    private func queryRun(
        _ query: RecordQuery, maxPages: Int, enough: @escaping ([Record], [Record]) -> Bool = { _, _ in false }
    ) async throws(CloudKitError) -> QueryRun {
        guard maxPages > 0 else { return QueryRun() }  // not complete: the budget is spent
        do throws(CloudKitError) {
            return try await session.perform { token throws(CloudKitError) in
                try await client.queryPages(query, token: token, maxPages: maxPages, enough: enough)
            }
        } catch {
            guard error.kind == .zoneNotFound else { throw error }
            var run = QueryRun()
            run.complete = true
            return run
        }
    }

    /// Whether a feed page came newest first (by modification time), as `reverse: true` asks.
    static func newestFirst(_ changes: [RecordResult]) -> Bool {
        let times = changes.compactMap { $0.record?.modifiedAt }
        return zip(times, times.dropFirst()).allSatisfy { $0 >= $1 }
    }
}

extension Listing {
    /// The sentences the model is asked to repeat when something could not be read; empty when complete.
    var warning: String? {
        guard !gaps.isEmpty else { return nil }
        var sentences: [String] = []
        for gap in gaps {
            switch gap {
            case .todosCut:
                sentences.append(
                    "This answer may be incomplete: the user's iCloud holds more to-do records than the relay reads "
                        + "in one call (\(TodoDatabase.maxQueryPages) pages), so some to-dos may be missing. Tell the "
                        + "user so; asking for pending to-dos only reads fewer records.")
            case .occurrencesCut:
                sentences.append(
                    "Some days of repeating to-dos (done, skipped or snoozed) could not all be read; pass from and "
                        + "to for a shorter range to see them.")
            case .recentUnknown:
                sentences.append(
                    "iCloud did not return its newest changes first, so a change made in the last few seconds may "
                        + "not show yet; if the user just changed something, call again in a few seconds.")
            }
        }
        return sentences.joined(separator: " ")
    }
}
