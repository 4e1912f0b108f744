import RelayJSON

/// `records/modify`: the seven operation types, per-item errors, atomic batches.
extension World {
    /// One operation's outcome.
    private enum Outcome {
        case saved(String, StoredRecord)
        case deleted(String)
        case failed(String?, code: String, reason: String, retryAfter: Double? = nil)
        /// Refused by the schema (`RecordSchemaCheck`): one item's BAD_REQUEST, or the whole request's.
        case refused(String, EmulatorError)

        var failed: Bool {
            switch self {
            case .failed, .refused: true
            case .saved, .deleted: false
            }
        }
    }

    mutating func recordsModify(
        _ userKey: String, _ body: JSONObject, _ now: Int64, mode: SchemaMode
    ) throws(EmulatorError) -> JSONValue {
        guard let operations = body["operations"]?.arrayValue else { throw .badRequest("operations is required") }
        try Self.checkItemCount(operations.count)
        try RecordWire.checkShapes(operations.compactMap { $0["record"] })
        let zoneName = RecordWire.zoneName(body)
        var zone = try zone(userKey, zoneName)
        let atomic = body["atomic"]?.boolValue ?? true
        if atomic, zone.isDefault { throw .badRequest("atomic operations not supported in default zone") }
        let names = operations.compactMap { $0["record"]?["recordName"]?.stringValue }
        guard Set(names).count == names.count else { throw .badRequest("only one operation per record is allowed") }

        let savedTagCounter = tagCounter
        var schema = schemas.schema(mode)
        let check = RecordSchemaCheck(mode: mode, nullsClear: settings.nullValues == "clear")
        var outcomes: [Outcome] = []
        for operation in operations {
            switch apply(operation, to: &zone, check: check, schema: &schema, now: now) {
            case .refused(let name, let error):
                // Apple's answer to a schema refusal is not documented: one item's error (as the native
                // framework reports it, inside a partial failure) or the whole request's. A setting picks.
                guard settings.schemaErrors == "perRecord" else {
                    tagCounter = savedTagCounter
                    throw error
                }
                outcomes.append(.failed(name, code: "BAD_REQUEST", reason: error.reason))
            case let outcome:
                outcomes.append(outcome)
            }
        }
        if atomic, outcomes.contains(where: \.failed) {
            tagCounter = savedTagCounter
            throw atomicFailure(outcomes)
        }
        users[userKey]?.zones[zoneName] = zone
        if mode != .production { schemas.development = schema }
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
            case .refused(let name, let error):
                return RecordWire.itemError(name, code: "BAD_REQUEST", reason: error.reason)
            }
        }
        return ["records": .array(results)]
    }

    private mutating func apply(
        _ operation: JSONValue, to zone: inout ZoneState, check: RecordSchemaCheck, schema: inout ContainerSchema,
        now: Int64
    ) -> Outcome {
        let kind = operation["operationType"]?.stringValue ?? ""
        guard let record = operation["record"]?.objectValue else {
            return .failed(nil, code: "BAD_REQUEST", reason: "BadRequestException: record is required")
        }
        guard let name = record["recordName"]?.stringValue ?? (kind == "create" ? Opaque.recordName() : nil) else {
            return .failed(nil, code: "BAD_REQUEST", reason: "BadRequestException: recordName is required")
        }
        if let problem = RecordNameRules.problem(name) {
            return .failed(name, code: "BAD_REQUEST", reason: "BadRequestException: \(problem)")
        }
        if let fault = takeItemFault(name) {
            return .failed(name, code: fault.serverErrorCode, reason: fault.reason, retryAfter: fault.retryAfter)
        }
        let existing = zone.records[name]
        let tag = record["recordChangeTag"]?.stringValue
        let type = record["recordType"]?.stringValue ?? existing?.recordType
        var fields: [String: StoredField?] = [:]
        if let type, !type.isEmpty, !["delete", "forceDelete"].contains(kind) {
            do {
                fields = try check.fields(record["fields"], recordType: type, schema: &schema)
            } catch {
                return .refused(name, error)
            }
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
            return save(name, type, fields, merging: nil, in: &zone, now: now)
        case "update", "replace":
            guard let existing else { return missing }
            guard let tag else {
                return .failed(name, code: "BAD_REQUEST", reason: "BadRequestException: recordChangeTag is required")
            }
            guard tag == existing.changeTag else { return conflict }
            return save(
                name, type, fields, merging: kind == "update" ? existing : nil, keeping: existing, in: &zone,
                now: now)
        case "forceUpdate", "forceReplace":
            return save(
                name, type, fields, merging: kind == "forceUpdate" ? existing : nil, keeping: existing,
                in: &zone, now: now)
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
            zone.noteIndexChange(name, previous: existing, now: now, lag: indexLag)
            zone.remove(name, sequence: zone.sequence)
            return .deleted(name)
        default:
            return .failed(name, code: "BAD_REQUEST", reason: "BadRequestException: unknown operationType")
        }
    }

    /// Writes a record: `merging` keeps its fields under the new ones (update), otherwise the new
    /// fields replace all; `keeping` supplies the creation time of an existing record.
    private mutating func save(
        _ name: String, _ type: String?, _ fields: [String: StoredField?], merging: StoredRecord?,
        keeping existing: StoredRecord? = nil, in zone: inout ZoneState, now: Int64
    ) -> Outcome {
        guard let type, !type.isEmpty else {
            return .failed(name, code: "BAD_REQUEST", reason: "BadRequestException: recordType is required")
        }
        var stored = merging?.fields ?? [:]
        for (key, value) in fields { stored[key] = value }
        zone.sequence += 1
        let record = StoredRecord(
            recordType: type, fields: stored, changeTag: nextChangeTag(), createdAt: existing?.createdAt ?? now,
            modifiedAt: now, sequence: zone.sequence)
        zone.noteIndexChange(name, previous: zone.records[name], now: now, lag: indexLag)
        zone.put(name, record)
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
            case .refused(let name, let error):
                return RecordWire.itemError(name, code: "BAD_REQUEST", reason: error.reason)
            case .saved(let name, _), .deleted(let name):
                return RecordWire.itemError(name, code: "ATOMIC_ERROR", reason: "Atomic operation failed")
            }
        }
        error.bodyOverride = ["records": .array(records)]
        return error
    }
}
