/// One zone: records, tombstones and a change sequence for `changes/zone`.
///
/// Records and tombstones change only through `put` and `remove`, which keep the zone's indexes in step: the
/// change log (`changes/zone` reads the newest or the next changes without collecting every record) and the
/// sort indexes (`records/query` reads a page in order without sorting every record of the type), as Apple's
/// service reads its change history and its query indexes rather than scanning a zone per request. They change
/// no answer: `QueryIndexTests` compares every indexed answer with the scan of every record.
struct ZoneState: Sendable {
    var name: String
    /// Records by name.
    private(set) var records: [String: StoredRecord] = [:]
    /// Deleted record names with the sequence number of their deletion.
    private(set) var tombstones: [String: Int64] = [:]
    var sequence: Int64 = 0
    /// Records whose last change has not reached the query indexes yet: what the indexes still hold (nil: the
    /// record was new) and when the change becomes visible to `records/query` (ms).
    var lagging: [String: IndexLag] = [:]
    /// Every record's and tombstone's change, in sequence order.
    private(set) var changeLog = ChangeLog()
    /// The sort indexes built so far, by record type and field (`prepareIndex`).
    private(set) var sortIndexes: [SortIndex.Key: SortIndex] = [:]
    /// Records as responses carry them, kept from the first response that carried them until they change
    /// (`renderedRecord`).
    private var rendered: [String: RenderedRecord] = [:]

    init(name: String) { self.name = name }

    /// A zone read back from a state file: its records and tombstones with the sequences they were saved with.
    init(name: String, sequence: Int64, records: [String: StoredRecord], tombstones: [String: Int64]) {
        self.name = name
        self.sequence = sequence
        self.records = records
        self.tombstones = tombstones
        changeLog = ChangeLog(records: records, tombstones: tombstones)
    }

    var isDefault: Bool { name == User.defaultZone }

    /// Saves `record` (its `sequence` the zone's newest) as `name`, replacing any record or tombstone of that name.
    mutating func put(_ name: String, _ record: StoredRecord) {
        let previous = records.updateValue(record, forKey: name)
        rendered[name] = nil
        let buried = tombstones.removeValue(forKey: name) != nil
        changeLog.append(record.sequence, name, replacing: previous != nil || buried)
        compactChangeLog()
        for key in Array(sortIndexes.keys) {
            if let previous, previous.recordType == key.recordType { sortIndexes[key]?.remove(name, previous) }
            if record.recordType == key.recordType { sortIndexes[key]?.insert(name, record) }
        }
    }

    /// Deletes the record `name` (it exists) as change `sequence`, leaving a tombstone.
    mutating func remove(_ name: String, sequence: Int64) {
        guard let previous = records.removeValue(forKey: name) else { return }
        rendered[name] = nil
        tombstones[name] = sequence
        changeLog.append(sequence, name, replacing: true)
        for key in Array(sortIndexes.keys) where previous.recordType == key.recordType {
            sortIndexes[key]?.remove(name, previous)
        }
        compactChangeLog()
    }

    /// The records of a response, in order: each as this zone keeps it (rendered once per version with the default
    /// options: `put` and `remove` drop what was kept) when the options are the default, else rendered now. A
    /// version the query indexes still hold (`lagging`) is rendered now and not kept.
    mutating func wireRecords(_ page: [PageRecord], owner: String, options: RecordWire.Options) -> [WireValue] {
        page.map { name, record in
            guard options.isDefault else {
                return .json(RecordWire.render(name, record, zone: self.name, owner: owner, options: options))
            }
            return .encoded(renderedRecord(name, record, owner: owner))
        }
    }

    /// `record` (a version of `name`) as `RecordWire.render` writes it with the default options, from what is kept
    /// when that is this version (sequence, change tag and owner alike), else rendered now and kept when it is the
    /// current one.
    private mutating func renderedRecord(_ name: String, _ record: StoredRecord, owner: String) -> [UInt8] {
        if let kept = rendered[name], kept.sequence == record.sequence, kept.changeTag == record.changeTag,
            kept.owner == owner
        {
            return kept.bytes
        }
        let bytes = RecordWire.render(name, record, zone: self.name, owner: owner, options: RecordWire.Options()).bytes
        if let current = records[name], current.sequence == record.sequence, current.changeTag == record.changeTag {
            rendered[name] = RenderedRecord(
                sequence: record.sequence, changeTag: record.changeTag, owner: owner, bytes: bytes)
        }
        return bytes
    }

    /// Builds the sort index `key` if this zone has none yet (a query is about to read it).
    mutating func prepareIndex(_ key: SortIndex.Key) {
        guard sortIndexes[key] == nil else { return }
        sortIndexes[key] = SortIndex(key: key, records: records)
    }

    private mutating func compactChangeLog() {
        if changeLog.needsCompaction { changeLog = ChangeLog(records: records, tombstones: tombstones) }
    }

    /// Notes a change of `name` for the query indexes: from now until `now + lag` queries see `previous` (the
    /// record before the first change not yet indexed).
    mutating func noteIndexChange(_ name: String, previous: StoredRecord?, now: Int64, lag: Int64) {
        guard lag > 0 else {
            lagging[name] = nil
            return
        }
        // A change the indexes have not caught up with yet keeps what they hold (nil for a record still new).
        var stillIndexed = previous
        if let pending = lagging[name], pending.visibleAt > now { stillIndexed = pending.indexed }
        lagging[name] = IndexLag(indexed: stillIndexed, visibleAt: now + lag)
    }

    /// The records as the query indexes hold them at `now`.
    func indexed(now: Int64) -> [String: StoredRecord] {
        var view = records
        for (name, lag) in lagging where lag.visibleAt > now { view[name] = lag.indexed }
        return view
    }
}

/// A record's response form, for the version and owner it was written for.
struct RenderedRecord: Sendable {
    var sequence: Int64
    var changeTag: String
    var owner: String
    var bytes: [UInt8]
}

/// A change the query indexes have not caught up with.
struct IndexLag: Sendable {
    /// The record as the indexes hold it; nil when they do not hold it (it was created).
    var indexed: StoredRecord?
    /// When the change becomes visible to queries (ms since 1970).
    var visibleAt: Int64
}
