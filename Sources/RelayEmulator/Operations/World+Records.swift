import RelayJSON

/// `records/query`, `records/lookup` and `changes/zone`.
extension World {
    /// Apple's limits (PropertyMetrics, "Data Size Limits"): 200 operations (or records asked for) per request,
    /// 200 records per response.
    static let maxResults = 200

    /// Refuses a request with more than 200 items, as a whole. The wording follows the native framework's
    /// limitExceeded message ("Your request contains 618 items which is more than the maximum number of items in
    /// a single request (400)", insidegui/WWDC#535); Web Services' limit is 200 and its code is not documented.
    static func checkItemCount(_ count: Int) throws(EmulatorError) {
        guard count <= maxResults else {
            throw .badRequest(
                "Your request contains \(count) items which is more than the maximum number of items in a single "
                    + "request (\(maxResults))")
        }
    }

    /// `resultsLimit`: absent means the maximum; 1…200, anything else is refused (the wording is the emulator's:
    /// Apple's is not known).
    static func resultsLimit(_ json: JSONValue?) throws(EmulatorError) -> Int {
        guard let json, !json.isNull else { return maxResults }
        guard let value = json.intValue, (1...maxResults).contains(value) else {
            throw .badRequest("resultsLimit must be between 1 and \(maxResults)")
        }
        return value
    }

    /// The query-index lag in effect: the setting, or none with the lenient schema.
    var indexLag: Int64 { schemas.lenient ? 0 : Int64(settings.indexLag.wholeMilliseconds) }

    /// `records/query`. The page comes from the zone's sort index for the query's type and sort field (`SortIndex`,
    /// built on the first query that needs it) when the index can order it exactly; otherwise, and always with
    /// `scan` (the reference the indexes are tested against), from every record of the zone.
    mutating func recordsQuery(
        _ userKey: String, _ body: JSONObject, _ now: Int64, mode: SchemaMode, scan: Bool = false
    ) throws(EmulatorError) -> WireValue {
        guard let query = body["query"], let recordType = query["recordType"]?.stringValue else {
            throw .badRequest("query.recordType is required")
        }
        // A page holds what was asked for, but never more than the service serves (`queryPageSize`).
        let limit = min(try Self.resultsLimit(body["resultsLimit"]), settings.queryPageSize)
        let zoneName = RecordWire.zoneName(body)
        _ = try zone(userKey, zoneName)
        var evaluation = try QueryEvaluation(query: query)
        evaluation.missingLast = settings.missingSortValues == "last"
        evaluation.missingOmitted = settings.missingSortValues == "omitted"
        if mode.checksIndexes { try QueryIndexCheck.check(query, type: recordType, schema: schemas.schema(mode)) }
        let fingerprint = Opaque.fingerprint(query.bytes + Array(zoneName.utf8))
        var offset = 0
        if let marker = body["continuationMarker"]?.stringValue {
            guard let decoded = Opaque.offset(fromMarker: marker, fingerprint: fingerprint) else {
                throw .badRequest("continuationMarker does not belong to this query")
            }
            offset = decoded
        }
        let key = scan ? nil : evaluation.indexKey(recordType)
        if let key { users[userKey]?.zones[zoneName]?.prepareIndex(key) }
        // Matched against the indexes, which may not hold the latest changes yet (`EmulatorSettings.indexLag`).
        let (page, more) = try queryPage(
            userKey, zoneName, evaluation, recordType, key: key, offset: offset, limit: limit, now: now)
        let options = RecordWire.Options(
            desiredKeys: RecordWire.desiredKeys(body["desiredKeys"]),
            numbersAsStrings: body["numbersAsStrings"]?.boolValue ?? false)
        var result: [(String, WireValue)] = [
            ("records", .array(wireRecords(page, zone: zoneName, owner: userKey, options)))
        ]
        if more {
            let marker = Opaque.continuationMarker(offset: offset + page.count, fingerprint: fingerprint)
            result.append(("continuationMarker", .json(.string(marker))))
        }
        return .object(result)
    }

    /// The page of a query, from the sort index `key` when it orders the query exactly, else from every record.
    private func queryPage(
        _ userKey: String, _ zoneName: String, _ evaluation: QueryEvaluation, _ recordType: String,
        key: SortIndex.Key?, offset: Int, limit: Int, now: Int64
    ) throws(EmulatorError) -> (page: [ZoneState.PageRecord], more: Bool) {
        guard let zone = users[userKey]?.zones[zoneName] else { throw .badRequest("the zone is gone") }
        return key.flatMap { zone.indexedPage(evaluation, $0, offset: offset, limit: limit, now: now) }
            ?? zone.scannedPage(evaluation, recordType, offset: offset, limit: limit, now: now)
    }

    /// Records of a response, as their zone keeps them (`ZoneState.wireRecords`).
    private mutating func wireRecords(
        _ page: [ZoneState.PageRecord], zone: String, owner: String, _ options: RecordWire.Options
    ) -> [WireValue] {
        users[owner]?.zones[zone]?.wireRecords(page, owner: owner, options: options) ?? []
    }

    /// The first `count` of `entries` in the order `precedes` gives, sorted, for a scanned page (`scannedPage`: sorts
    /// no index serves): a bounded insertion (about one comparison per entry) instead of sorting thousands for one
    /// page. The same order as a full sort: `precedes` is total (ties broken by record name).
    static func first(
        _ count: Int, of entries: [QueryEvaluation.SortEntry],
        by precedes: (QueryEvaluation.SortEntry, QueryEvaluation.SortEntry) -> Bool
    ) -> [QueryEvaluation.SortEntry] {
        guard entries.count > count * 2 else { return entries.sorted(by: precedes) }
        var best = Array(entries.prefix(count)).sorted(by: precedes)
        for entry in entries.dropFirst(count) {
            guard let last = best.last, precedes(entry, last) else { continue }
            var low = 0
            var high = best.count
            while low < high {
                let middle = (low + high) / 2
                if precedes(best[middle], entry) { low = middle + 1 } else { high = middle }
            }
            best.insert(entry, at: low)
            best.removeLast()
        }
        return best
    }

    mutating func recordsLookup(_ userKey: String, _ body: JSONObject) throws(EmulatorError) -> WireValue {
        guard let requested = body["records"]?.arrayValue else { throw .badRequest("records is required") }
        try Self.checkItemCount(requested.count)
        let zoneName = RecordWire.zoneName(body)
        _ = try zone(userKey, zoneName)
        let topKeys = RecordWire.desiredKeys(body["desiredKeys"])
        let numbersAsStrings = body["numbersAsStrings"]?.boolValue ?? false
        var results: [WireValue] = []
        for item in requested {
            guard let name = item["recordName"]?.stringValue else { throw .badRequest("recordName is required") }
            if let problem = RecordNameRules.problem(name) {
                results.append(
                    .json(RecordWire.itemError(name, code: "BAD_REQUEST", reason: "BadRequestException: \(problem)")))
                continue
            }
            // Read in place (no copy of the zone held): `wireRecord` may keep the record's rendering in it.
            guard let record = users[userKey]?.zones[zoneName]?.records[name] else {
                results.append(.json(RecordWire.itemError(name, code: "NOT_FOUND", reason: "Record not found")))
                continue
            }
            let options = RecordWire.Options(
                desiredKeys: RecordWire.desiredKeys(item["desiredKeys"]) ?? topKeys, numbersAsStrings: numbersAsStrings)
            results += wireRecords([(name, record)], zone: zoneName, owner: userKey, options)
        }
        return .object([("records", .array(results))])
    }

    mutating func changesZone(_ userKey: String, _ body: JSONObject) throws(EmulatorError) -> WireValue {
        guard let requested = body["zones"]?.arrayValue else { throw .badRequest("zones is required") }
        var results: [WireValue] = []
        for item in requested {
            let name = item["zoneID"]?["zoneName"]?.stringValue ?? User.defaultZone
            guard users[userKey]?.zones[name] != nil else {
                results.append(
                    .json([
                        "zoneID": RecordWire.zoneID(name, owner: userKey), "serverErrorCode": "ZONE_NOT_FOUND",
                        "reason": "Zone does not exist",
                    ]))
                continue
            }
            results.append(try changes(in: name, userKey, item, body))
        }
        return .object([("zones", .array(results))])
    }

    private mutating func changes(
        in zoneName: String, _ userKey: String, _ item: JSONValue, _ body: JSONObject
    ) throws(EmulatorError) -> WireValue {
        let (page, moreComing, reverse, zoneSequence) = try changesPage(in: zoneName, userKey, item, body)
        let options = RecordWire.Options(
            desiredKeys: RecordWire.desiredKeys(item["desiredKeys"] ?? body["desiredKeys"]),
            numbersAsStrings: body["numbersAsStrings"]?.boolValue ?? false)
        let live = page.compactMap { change in change.record.map { (name: change.name, record: $0) } }
        var rendered = wireRecords(live, zone: zoneName, owner: userKey, options).makeIterator()
        let records: [WireValue] = page.map { change in
            guard change.record != nil, let record = rendered.next() else {
                return .json([
                    "recordName": .string(change.name), "deleted": true,
                    "zoneID": RecordWire.zoneID(zoneName, owner: userKey),
                ])
            }
            return record
        }
        let position = moreComing && !reverse ? page.last!.sequence : zoneSequence
        return .object([
            ("zoneID", .json(RecordWire.zoneID(zoneName, owner: userKey))),
            ("syncToken", .json(.string(Opaque.syncToken(zone: zoneName, sequence: position)))),
            ("moreComing", .json(.bool(moreComing))),
            ("records", .array(records)),
        ])
    }

    /// The changes of a `changes/zone` page, each with its record (nil: a tombstone), whether more are coming,
    /// whether they are newest first, and the zone's sequence.
    private func changesPage(
        in zoneName: String, _ userKey: String, _ item: JSONValue, _ body: JSONObject
    ) throws(EmulatorError) -> (
        page: [(sequence: Int64, name: String, record: StoredRecord?)], moreComing: Bool, reverse: Bool,
        sequence: Int64
    ) {
        guard let zone = users[userKey]?.zones[zoneName] else { throw .badRequest("the zone is gone") }
        var after: Int64 = 0
        if let token = item["syncToken"]?.stringValue {
            guard let sequence = Opaque.sequence(fromSyncToken: token, zone: zone.name), sequence <= zone.sequence
            else {
                throw .badRequest("Invalid sync token")
            }
            after = sequence
        }
        let limit = try min(Self.resultsLimit(item["resultsLimit"] ?? body["resultsLimit"]), settings.changesPageSize)
        let types = item["desiredRecordTypes"]?.arrayValue.map { Set($0.compactMap(\.stringValue)) }
        // `reverse: true` (WS FetchingRecordZoneChanges): newest change first, unless the setting plays a
        // service that ignores it.
        let reverse = (item["reverse"] ?? body["reverse"])?.boolValue == true && settings.reverseChanges == "honoured"
        // Read from the change log, from its newest end or from the sync token on, one change past the page (to
        // know whether more are coming): the zone's other records are never touched.
        let log = zone.changeLog.entries
        let pageSize = max(1, limit)
        var page: [(sequence: Int64, name: String, record: StoredRecord?)] = []
        var index = reverse ? log.count - 1 : zone.changeLog.firstIndex(after: after)
        while page.count <= pageSize, index >= 0, index < log.count, log[index].sequence > after {
            let entry = log[index]
            index += reverse ? -1 : 1
            if let record = zone.records[entry.name], record.sequence == entry.sequence {
                if types?.contains(record.recordType) ?? true { page.append((entry.sequence, entry.name, record)) }
            } else if zone.tombstones[entry.name] == entry.sequence {
                page.append((entry.sequence, entry.name, nil))
            }
        }
        let moreComing = page.count > pageSize
        if moreComing { page.removeLast() }
        return (page, moreComing, reverse, zone.sequence)
    }

    func zone(_ userKey: String, _ name: String) throws(EmulatorError) -> ZoneState {
        guard let zone = users[userKey]?.zones[name] else {
            throw EmulatorError(status: 404, code: "ZONE_NOT_FOUND", reason: "Zone '\(name)' does not exist")
        }
        return zone
    }
}
