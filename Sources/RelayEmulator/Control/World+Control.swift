import Foundation
import RelayJSON

/// What the control API does to the world. Plain functions so the in-process API
/// (`Emulator+Control`) and the HTTP one (`ControlAPI`) share them.
extension World {
    /// The user for an identifier, created (with its zones) when it is an unknown Apple ID.
    mutating func controlUser(_ identifier: String, zoneName: String?, now: Int64) throws(EmulatorError) -> String {
        if let key = userKey(identifier) { return key }
        guard !identifier.hasPrefix("_"), !Opaque.normalized(identifier).isEmpty else {
            throw EmulatorError(status: 404, code: nil, reason: "unknown user")
        }
        return ensureUser(appleID: identifier, zoneName: zoneName, now: now)
    }

    func knownUser(_ identifier: String) throws(EmulatorError) -> String {
        guard let key = userKey(identifier) else { throw EmulatorError(status: 404, code: nil, reason: "unknown user") }
        return key
    }

    /// Marks a user; turning Advanced Data Protection on ends or keeps sessions per settings.
    mutating func setFlags(_ key: String, advancedDataProtection: Bool?, webAccessOff: Bool?) {
        if let advancedDataProtection { users[key]?.advancedDataProtection = advancedDataProtection }
        if let webAccessOff { users[key]?.webAccessOff = webAccessOff }
        let blocked = advancedDataProtection == true || webAccessOff == true
        if blocked, webAccessOff == true || settings.protectedSessions == .expire {
            _ = expireSessions(userKey: key)
        }
    }

    func userJSON(_ key: String, now: Int64) -> JSONValue {
        guard let user = users[key] else { return .null }
        let live = sessions.values.filter { $0.userRecordName == key && ($0.expiresAt ?? .max) > now }.count
        return [
            "appleID": .string(user.appleID), "userRecordName": .string(key),
            "advancedDataProtection": .bool(user.advancedDataProtection), "webAccessOff": .bool(user.webAccessOff),
            "zones": .array(user.zones.keys.sorted().map { .string($0) }), "liveSessions": .int(live),
        ]
    }

    /// A user's records in a zone (all types, or one), sorted by name, in the wire form.
    func recordsJSON(_ key: String, zone name: String, recordType: String?) throws(EmulatorError) -> JSONValue {
        let zone = try zone(key, name)
        let records = zone.records.filter { recordType == nil || $0.value.recordType == recordType }
            .sorted { $0.key < $1.key }
            .map { RecordWire.render($0.key, $0.value, zone: name, owner: key, options: RecordWire.Options()) }
        return ["userRecordName": .string(key), "zone": .string(name), "records": .array(records)]
    }

    /// Writes records as given (forceReplace, 200 at a time), creating the zone if needed. Production's schema
    /// applies (unless the emulator is lenient): a record the app could not have written is refused.
    mutating func seed(_ key: String, zone name: String, records: [JSONValue], now: Int64) throws(EmulatorError)
        -> JSONValue
    {
        if users[key]?.zones[name] == nil { users[key]?.zones[name] = ZoneState(name: name) }
        var results: [JSONValue] = []
        var start = 0
        while start < records.count {
            let chunk = records[start..<min(start + Self.maxResults, records.count)]
            let operations: [JSONValue] = chunk.map { ["operationType": "forceReplace", "record": $0] }
            let body: JSONObject = [
                "zoneID": ["zoneName": .string(name)], "atomic": false, "operations": .array(operations),
            ]
            // Seeds stand for what the app wrote, which production's schema bounds too.
            let mode: SchemaMode = schemas.lenient ? .lenient : .production
            results += try recordsModify(key, body, now, mode: mode)["records"]?.arrayValue ?? []
            start += Self.maxResults
        }
        // Seeds stand for history the indexes have long caught up with.
        for item in results {
            if let seeded = item["recordName"]?.stringValue { users[key]?.zones[name]?.lagging[seeded] = nil }
        }
        // A seed that silently failed would let a test pass on records that never existed.
        let refused = results.compactMap { item -> String? in
            guard let code = item["serverErrorCode"]?.stringValue else { return nil }
            return "\(item["recordName"]?.stringValue ?? "?"): \(code) \(item["reason"]?.stringValue ?? "")"
        }
        guard refused.isEmpty else {
            let shown = refused.prefix(3).joined(separator: "; ") + (refused.count > 3 ? "; …" : "")
            throw .control("\(refused.count) record(s) refused: \(shown)")
        }
        return ["records": .array(results)]
    }

    /// Parses a fault description (see `--help`).
    static func fault(_ json: JSONValue) throws(EmulatorError) -> Fault {
        guard let status = json["status"]?.intValue, (100...599).contains(status) else {
            throw .control("status (100-599) is required")
        }
        let count = json["count"]?.intValue ?? 1
        guard count > 0 else { throw .control("count must be positive") }
        let body = try json["body"].map { value throws(EmulatorError) -> Fault.Body in
            guard let text = value.stringValue, let body = Fault.Body(rawValue: text) else {
                throw .control("body must be json, html or empty")
            }
            return body
        }
        return Fault(
            remaining: count, status: status, serverErrorCode: json["serverErrorCode"]?.stringValue,
            reason: json["reason"]?.stringValue, retryAfter: json["retryAfter"]?.doubleValue,
            retryAfterHeader: json["retryAfterHeader"]?.intValue, body: body ?? .json,
            operations: json["operations"]?.arrayValue.map { Set($0.compactMap(\.stringValue)) })
    }

    /// Parses a per-item fault description (see `--help`).
    static func itemFault(_ json: JSONValue) throws(EmulatorError) -> ItemFault {
        let count = json["count"]?.intValue ?? 1
        guard count > 0 else { throw .control("count must be positive") }
        let code = json["serverErrorCode"]?.stringValue ?? "CONFLICT"
        let reason =
            json["reason"]?.stringValue
            ?? (code == "CONFLICT" ? "record to update already exists with a different change tag" : "Injected fault")
        return ItemFault(
            remaining: count, serverErrorCode: code, reason: reason, retryAfter: json["retryAfter"]?.doubleValue,
            recordName: json["recordName"]?.stringValue)
    }

    func statsJSON(openConnections: Int) -> JSONValue {
        let operations = JSONObject(stats.operations.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })
        return [
            "requests": .int(stats.requests), "databaseRequests": .int(stats.databaseRequests),
            "operations": .object(operations), "signIns": .int(stats.signIns), "faultsServed": .int(stats.faultsServed),
            "pendingFaults": .int(faults.reduce(0) { $0 + $1.remaining }),
            "pendingItemFaults": .int(itemFaults.reduce(0) { $0 + $1.remaining }),
            "users": .int(users.count), "sessions": .int(sessions.count),
            "openConnections": .int(openConnections), "peakOpenConnections": .int(stats.peakOpenConnections),
            "latencyMilliseconds": .int(latency.wholeMilliseconds),
            "processCPUSeconds": .double(Self.processCPUSeconds()),
        ]
    }

    /// User plus system CPU time of the whole process (benchmarks report CPU per call).
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        return user + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// Forgets users, sessions, faults, latency, clock shift, counters and what development saves added to the
    /// schema; keeps settings, the callback and the production schema.
    mutating func reset() {
        self = World(
            settings: settings, callbackURL: callbackURL,
            schemas: SchemaState(schemas.production, lenient: schemas.lenient))
    }
}
