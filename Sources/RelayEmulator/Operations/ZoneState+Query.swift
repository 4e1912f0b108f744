/// A `records/query` page read from a zone, by its sort index or by a scan of every record.
extension ZoneState {
    /// One record of a page.
    typealias PageRecord = (name: String, record: StoredRecord)

    /// The page at `offset` of the query, from every record of the zone as the indexes hold them at `now`: the
    /// matches sorted (`World.first`), and whether more match after the page.
    func scannedPage(
        _ evaluation: QueryEvaluation, _ recordType: String, offset: Int, limit: Int, now: Int64
    ) -> (page: [PageRecord], more: Bool) {
        let indexed = indexed(now: now)
        var matching: [QueryEvaluation.SortEntry] = []
        for (name, record) in indexed
        where record.recordType == recordType && evaluation.matches(name, record) && evaluation.ordered(name, record) {
            matching.append(evaluation.sortEntry(name, record))
        }
        let ordered = World.first(offset + limit, of: matching, by: evaluation.precedes)
        let page = ordered.dropFirst(offset).prefix(limit).compactMap { entry in
            indexed[entry.name].map { (name: entry.name, record: $0) }
        }
        return (page, offset + page.count < matching.count)
    }

    /// The same page read in order from the sort index `key` (built: `prepareIndex`), stopping one match past the
    /// page; nil when the index cannot give `QueryEvaluation`'s order exactly (values of mixed kinds), and the
    /// caller scans. Changes the indexes have not caught up with (`lagging`) are laid over it: a record changed
    /// since is read as it was, in its old place, and a record created since is not there yet.
    func indexedPage(
        _ evaluation: QueryEvaluation, _ key: SortIndex.Key, offset: Int, limit: Int, now: Int64
    ) -> (page: [PageRecord], more: Bool)? {
        guard let index = sortIndexes[key], index.usable else { return nil }
        var hidden: Set<String> = []
        var stale: [(entry: QueryEvaluation.SortEntry, record: StoredRecord)] = []
        for (name, lag) in lagging where lag.visibleAt > now {
            hidden.insert(name)
            guard let old = lag.indexed, old.recordType == key.recordType else { continue }
            if let field = key.field, let value = old.fields[field]?.value, !index.accepts(value) { return nil }
            stale.append((evaluation.sortEntry(name, old), old))
        }
        stale.sort { evaluation.precedes($0.entry, $1.entry) }

        var page: [PageRecord] = []
        var matched = 0
        var more = false
        // Counts a record in order; false once one past the page has matched.
        func take(_ name: String, _ record: StoredRecord) -> Bool {
            guard evaluation.matches(name, record), evaluation.ordered(name, record) else { return true }
            matched += 1
            if matched > offset + limit {
                more = true
                return false
            }
            if matched > offset { page.append((name, record)) }
            return true
        }
        var next = 0
        let ascending = evaluation.sortKeys.first?.ascending ?? true
        index.forEach(
            ascending: ascending, missingFirst: ascending != evaluation.missingLast,
            includeMissing: key.field == nil || !evaluation.missingOmitted
        ) { name, value in
            guard !hidden.contains(name), let record = records[name] else { return true }
            if next < stale.count {
                let entry = QueryEvaluation.SortEntry(name: name, values: key.field == nil ? [] : [value?.json])
                while next < stale.count, evaluation.precedes(stale[next].entry, entry) {
                    guard take(stale[next].entry.name, stale[next].record) else { return false }
                    next += 1
                }
            }
            return take(name, record)
        }
        while !more, next < stale.count {
            guard take(stale[next].entry.name, stale[next].record) else { break }
            next += 1
        }
        return (page, more)
    }
}

extension QueryEvaluation {
    /// The sort index that orders this query of `recordType`: by its one sort field, or by record name when it has
    /// no sort; nil for other sorts (several keys, system fields), which scan.
    func indexKey(_ recordType: String) -> SortIndex.Key? {
        switch sortKeys.count {
        case 0: return SortIndex.Key(recordType: recordType, field: nil)
        case 1:
            guard case .field(let field) = sortKeys[0].field else { return nil }
            return SortIndex.Key(recordType: recordType, field: field)
        default: return nil
        }
    }
}
