import RelayJSON

/// `records/query`, `records/lookup` and `changes/zone`.
extension World {
    static let maxResults = 200

    func recordsQuery(_ userKey: String, _ body: JSONObject, _ now: Int64) throws(EmulatorError) -> JSONValue {
        guard let query = body["query"], let recordType = query["recordType"]?.stringValue else {
            throw .badRequest("query.recordType is required")
        }
        let zoneName = RecordWire.zoneName(body)
        let zone = try zone(userKey, zoneName)
        let evaluation = try QueryEvaluation(query: query)
        var limit = Self.maxResults
        if let requested = body["resultsLimit"] {
            guard let value = requested.intValue, value > 0 else { throw .badRequest("resultsLimit must be positive") }
            limit = min(value, Self.maxResults)
        }
        let fingerprint = Opaque.fingerprint(query.bytes + Array(zoneName.utf8))
        var offset = 0
        if let marker = body["continuationMarker"]?.stringValue {
            guard let decoded = Opaque.offset(fromMarker: marker, fingerprint: fingerprint) else {
                throw .badRequest("continuationMarker does not belong to this query")
            }
            offset = decoded
        }
        let matching = zone.records.filter { $0.value.recordType == recordType && evaluation.matches($0.key, $0.value) }
            .sorted { evaluation.precedes(($0.key, $0.value), ($1.key, $1.value)) }
        let page = matching.dropFirst(offset).prefix(limit)
        let options = RecordWire.Options(
            desiredKeys: RecordWire.desiredKeys(body["desiredKeys"]),
            numbersAsStrings: body["numbersAsStrings"]?.boolValue ?? false)
        var result: JSONObject = [
            "records": .array(
                page.map { RecordWire.render($0.key, $0.value, zone: zoneName, owner: userKey, options: options) })
        ]
        if offset + page.count < matching.count {
            result["continuationMarker"] = .string(
                Opaque.continuationMarker(offset: offset + page.count, fingerprint: fingerprint))
        }
        return .object(result)
    }

    func recordsLookup(_ userKey: String, _ body: JSONObject) throws(EmulatorError) -> JSONValue {
        guard let requested = body["records"]?.arrayValue else { throw .badRequest("records is required") }
        guard requested.count <= Self.maxResults else {
            throw .badRequest("too many records requested: \(requested.count) (limit \(Self.maxResults))")
        }
        let zoneName = RecordWire.zoneName(body)
        let zone = try zone(userKey, zoneName)
        let topKeys = RecordWire.desiredKeys(body["desiredKeys"])
        let numbersAsStrings = body["numbersAsStrings"]?.boolValue ?? false
        var results: [JSONValue] = []
        for item in requested {
            guard let name = item["recordName"]?.stringValue else { throw .badRequest("recordName is required") }
            guard let record = zone.records[name] else {
                results.append(RecordWire.itemError(name, code: "NOT_FOUND", reason: "Record not found"))
                continue
            }
            let options = RecordWire.Options(
                desiredKeys: RecordWire.desiredKeys(item["desiredKeys"]) ?? topKeys, numbersAsStrings: numbersAsStrings)
            results.append(RecordWire.render(name, record, zone: zoneName, owner: userKey, options: options))
        }
        return ["records": .array(results)]
    }

    func changesZone(_ userKey: String, _ body: JSONObject) throws(EmulatorError) -> JSONValue {
        guard let requested = body["zones"]?.arrayValue else { throw .badRequest("zones is required") }
        var results: [JSONValue] = []
        for item in requested {
            let name = item["zoneID"]?["zoneName"]?.stringValue ?? User.defaultZone
            guard let zone = users[userKey]?.zones[name] else {
                results.append([
                    "zoneID": RecordWire.zoneID(name, owner: userKey), "serverErrorCode": "ZONE_NOT_FOUND",
                    "reason": "Zone does not exist",
                ])
                continue
            }
            results.append(try changes(in: zone, userKey, item, body))
        }
        return ["zones": .array(results)]
    }

    private func changes(
        in zone: ZoneState, _ userKey: String, _ item: JSONValue, _ body: JSONObject
    ) throws(EmulatorError) -> JSONValue {
        var after: Int64 = 0
        if let token = item["syncToken"]?.stringValue {
            guard let sequence = Opaque.sequence(fromSyncToken: token, zone: zone.name), sequence <= zone.sequence
            else {
                throw .badRequest("Invalid sync token")
            }
            after = sequence
        }
        let limit = min(item["resultsLimit"]?.intValue ?? settings.changesPageSize, settings.changesPageSize)
        let types = item["desiredRecordTypes"]?.arrayValue.map { Set($0.compactMap(\.stringValue)) }
        var changed: [(sequence: Int64, name: String, record: StoredRecord?)] = []
        for (name, record) in zone.records where record.sequence > after {
            if types?.contains(record.recordType) ?? true { changed.append((record.sequence, name, record)) }
        }
        for (name, sequence) in zone.tombstones where sequence > after { changed.append((sequence, name, nil)) }
        changed.sort { $0.sequence < $1.sequence }
        let page = changed.prefix(max(1, limit))
        let moreComing = changed.count > page.count
        let options = RecordWire.Options(
            desiredKeys: RecordWire.desiredKeys(item["desiredKeys"] ?? body["desiredKeys"]),
            numbersAsStrings: body["numbersAsStrings"]?.boolValue ?? false)
        let records: [JSONValue] = page.map { change in
            guard let record = change.record else {
                return [
                    "recordName": .string(change.name), "deleted": true,
                    "zoneID": RecordWire.zoneID(zone.name, owner: userKey),
                ]
            }
            return RecordWire.render(change.name, record, zone: zone.name, owner: userKey, options: options)
        }
        let position = moreComing ? page.last!.sequence : zone.sequence
        return [
            "zoneID": RecordWire.zoneID(zone.name, owner: userKey),
            "syncToken": .string(Opaque.syncToken(zone: zone.name, sequence: position)),
            "moreComing": .bool(moreComing),
            "records": .array(records),
        ]
    }

    func zone(_ userKey: String, _ name: String) throws(EmulatorError) -> ZoneState {
        guard let zone = users[userKey]?.zones[name] else {
            throw EmulatorError(status: 404, code: "ZONE_NOT_FOUND", reason: "Zone '\(name)' does not exist")
        }
        return zone
    }
}
