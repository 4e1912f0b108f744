/// A zone's changes in sequence order, for `changes/zone`: one entry per save or delete, appended as they happen
/// (sequences only grow). An entry is current while its record (or tombstone) still carries its sequence; older
/// entries of a name stay until the log is rebuilt from the current ones, once they are as many as those.
struct ChangeLog: Sendable {
    struct Entry: Sendable {
        var sequence: Int64
        var name: String
    }

    private(set) var entries: [Entry] = []
    /// Entries a later change of the same name superseded.
    private var superseded = 0

    init() {}

    /// The log of a zone's current records and tombstones.
    init(records: [String: StoredRecord], tombstones: [String: Int64]) {
        entries.reserveCapacity(records.count + tombstones.count)
        for (name, record) in records { entries.append(Entry(sequence: record.sequence, name: name)) }
        for (name, sequence) in tombstones { entries.append(Entry(sequence: sequence, name: name)) }
        entries.sort { $0.sequence < $1.sequence }
    }

    /// Records change `sequence` (newer than every entry) of `name`; `replacing` when `name` had an entry.
    mutating func append(_ sequence: Int64, _ name: String, replacing: Bool) {
        if let last = entries.last, last.sequence >= sequence {
            // Not newer (a state file edited by hand): keep the order by inserting in place.
            let index = entries.partitioningIndex { $0.sequence > sequence }
            entries.insert(Entry(sequence: sequence, name: name), at: index)
        } else {
            entries.append(Entry(sequence: sequence, name: name))
        }
        if replacing { superseded += 1 }
    }

    /// Whether superseded entries are as many as current ones (and worth dropping).
    var needsCompaction: Bool { superseded > 64 && superseded * 2 > entries.count }

    /// The index of the first entry with a sequence above `sequence`.
    func firstIndex(after sequence: Int64) -> Int { entries.partitioningIndex { $0.sequence > sequence } }
}

extension Array {
    /// The first index whose element satisfies `belongs`, for an array where every element that does comes after
    /// every element that does not (a binary search).
    func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
