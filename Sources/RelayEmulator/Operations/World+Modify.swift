import RelayJSON

/// `records/modify`: the seven operation types, per-item errors, atomic batches.
extension World {
    /// One operation's outcome.
    private enum Outcome {
        case saved(String, StoredRecord)
        case deleted(String)
        case failed(String?, code: String, reason: String, retryAfter: Double? = nil)

        var failed: Bool {
            if case .failed = self { return true }
            return false
        }
    }

    mutating func recordsModify(_ userKey: String, _ body: JSONObject, _ now: Int64) throws(EmulatorError) -> JSONValue
    {
        guard let operations = body["operations"]?.arrayValue else { throw .badRequest("operations is required") }
        guard operations.count <= Self.maxResults else {
            throw .badRequest("too many operations: \(operations.count) (limit \(Self.maxResults))")
        }
        let zoneName = RecordWire.zoneName(body)
        var zone = try zone(userKey, zoneName)
        let atomic = body["atomic"]?.boolValue ?? true
        if atomic, zone.isDefault { throw .badRequest("atomic operations not supported in default zone") }
        let names = operations.compactMap { $0["record"]?["recordName"]?.stringValue }
        guard Set(names).count == names.count else { throw .badRequest("only one operation per record is allowed") }

        let savedTagCounter = tagCounter
        var schema = users[userKey]?.schema ?? [:]
        var outcomes: [Outcome] = []
        for operation in operations {
            outcomes.append(apply(operation, to: &zone, schema: &schema, now: now))
        }
        if atomic, outcomes.contains(where: \.failed) {
            tagCounter = savedTagCounter
            throw atomicFailure(outcomes)
        }
        users[userKey]?.zones[zoneName] = zone
        users[userKey]?.schema = schema
        let numbersAsStrings = body["numbersAsStrings"]?.boolValue ?? false
        let results: [JSONValue] = zip(operations, outcomes).map { operation, outcome in
            switch outcome {
            case .saved(let name, let record):
                let keys = RecordWire.desiredKeys(operation["desiredKeys"] ?? body["desiredKeys"])
                let options = RecordWire.Options(desiredKeys: keys, numbersAsStrings: numbersAsStrings)
                return RecordWire.render(name, record, zone: zoneName, owner: userKey, options: options)
            case .deleted(let name):
                return [
                    "recordName": .string(name), "deleted": true, "zoneID": RecordWire.zoneID(zoneName, owner: userKey),
                ]
            case .failed(let name, let code, let reason, let retryAfter):
                return RecordWire.itemError(name, code: code, reason: reason, retryAfter: retryAfter)
            }
        }
        return ["records": .array(results)]
    }

    private mutating func apply(
        _ operation: JSONValue, to zone: inout ZoneState, schema: inout [String: [String: String]], now: Int64
    ) -> Outcome {
        let kind = operation["operationType"]?.stringValue ?? ""
        guard let record = operation["record"]?.objectValue else {
            return .failed(nil, code: "BAD_REQUEST", reason: "BadRequestException: record is required")
        }
        guard let name = record["recordName"]?.stringValue ?? (kind == "create" ? Opaque.recordName() : nil) else {
            return .failed(nil, code: "BAD_REQUEST", reason: "BadRequestException: recordName is required")
        }
        if let fault = takeItemFault(name) {
            return .failed(name, code: fault.serverErrorCode, reason: fault.reason, retryAfter: fault.retryAfter)
        }
        let existing = zone.records[name]
        let tag = record["recordChangeTag"]?.stringValue
        let type = record["recordType"]?.stringValue ?? existing?.recordType
        let fields: [String: StoredField?]
        do {
            fields = try RecordWire.parseFields(
                record["fields"], schema: type.flatMap { schema[$0] } ?? [:],
                acceptsNull: settings.nullValues == "clear")
        } catch {
            return .failed(name, code: "BAD_REQUEST", reason: error.reason)
        }
        if let existing, let given = record["recordType"]?.stringValue, given != existing.recordType {
            return .failed(name, code: "BAD_REQUEST", reason: "BadRequestException: record type does not match")
        }
        let conflict = Outcome.failed(
            name, code: "CONFLICT", reason: "record to update already exists with a different change tag")
        let missing = Outcome.failed(name, code: "NOT_FOUND", reason: "Record not found")
        switch kind {
        case "create":
            if existing != nil {
                return .failed(name, code: settings.createExistsCode, reason: "record to insert already exists")
            }
            return save(name, type, fields, merging: nil, in: &zone, schema: &schema, now: now)
        case "update", "replace":
            guard let existing else { return missing }
            guard let tag else {
                return .failed(name, code: "BAD_REQUEST", reason: "BadRequestException: recordChangeTag is required")
            }
            guard tag == existing.changeTag else { return conflict }
            return save(
                name, type, fields, merging: kind == "update" ? existing : nil, keeping: existing, in: &zone,
                schema: &schema, now: now)
        case "forceUpdate", "forceReplace":
            return save(
                name, type, fields, merging: kind == "forceUpdate" ? existing : nil, keeping: existing,
                in: &zone, schema: &schema, now: now)
        case "delete", "forceDelete":
            guard let existing else { return missing }
            if kind == "delete" {
                guard let tag else {
                    return .failed(
                        name, code: "BAD_REQUEST", reason: "BadRequestException: recordChangeTag is required")
                }
                guard tag == existing.changeTag else { return conflict }
            }
            zone.sequence += 1
            zone.records[name] = nil
            zone.tombstones[name] = zone.sequence
            return .deleted(name)
        default:
            return .failed(name, code: "BAD_REQUEST", reason: "BadRequestException: unknown operationType")
        }
    }

    /// Writes a record: `merging` keeps its fields under the new ones (update), otherwise the new
    /// fields replace all; `keeping` supplies the creation time of an existing record.
    private mutating func save(
        _ name: String, _ type: String?, _ fields: [String: StoredField?], merging: StoredRecord?,
        keeping existing: StoredRecord? = nil, in zone: inout ZoneState, schema: inout [String: [String: String]],
        now: Int64
    ) -> Outcome {
        guard let type, !type.isEmpty else {
            return .failed(name, code: "BAD_REQUEST", reason: "BadRequestException: recordType is required")
        }
        var stored = merging?.fields ?? [:]
        for (key, value) in fields { stored[key] = value }
        for (key, field) in stored where schema[type]?[key] == nil { schema[type, default: [:]][key] = field.type }
        zone.sequence += 1
        let record = StoredRecord(
            recordType: type, fields: stored, changeTag: nextChangeTag(), createdAt: existing?.createdAt ?? now,
            modifiedAt: now, sequence: zone.sequence)
        zone.records[name] = record
        zone.tombstones[name] = nil
        return .saved(name, record)
    }

    private mutating func takeItemFault(_ name: String) -> ItemFault? {
        guard let index = itemFaults.firstIndex(where: { $0.recordName == nil || $0.recordName == name }) else {
            return nil
        }
        let fault = itemFaults[index]
        itemFaults[index].remaining -= 1
        if itemFaults[index].remaining <= 0 { itemFaults.remove(at: index) }
        stats.faultsServed += 1
        return fault
    }

    /// An atomic batch with a failure: nothing was written. The culprits keep their own codes,
    /// the rest get ATOMIC_ERROR (or one ATOMIC_ERROR body, per settings).
    private func atomicFailure(_ outcomes: [Outcome]) -> EmulatorError {
        var error = EmulatorError(status: 400, code: "ATOMIC_ERROR", reason: "Atomic operation failed")
        guard settings.atomicFailure == "perRecord" else { return error }
        let records: [JSONValue] = outcomes.map { outcome in
            switch outcome {
            case .failed(let name, let code, let reason, let retryAfter):
                return RecordWire.itemError(name, code: code, reason: reason, retryAfter: retryAfter)
            case .saved(let name, _), .deleted(let name):
                return RecordWire.itemError(name, code: "ATOMIC_ERROR", reason: "Atomic operation failed")
            }
        }
        error.bodyOverride = ["records": .array(records)]
        return error
    }
}
