import RelayJSON

/// `zones/list`, `zones/lookup`, `zones/modify`.
extension World {
    func zonesList(_ userKey: String) -> JSONValue {
        guard let user = users[userKey] else { return ["zones": []] }
        let zones = user.zones.values.sorted { $0.name < $1.name }.map { zoneJSON($0, owner: userKey) }
        return ["zones": .array(zones)]
    }

    func zonesLookup(_ userKey: String, _ body: JSONObject) throws(EmulatorError) -> JSONValue {
        guard let requested = body["zones"]?.arrayValue else { throw .badRequest("zones is required") }
        let user = users[userKey]
        let zones: [JSONValue] = requested.map { item in
            let name = item["zoneName"]?.stringValue ?? ""
            if let zone = user?.zones[name] { return zoneJSON(zone, owner: userKey) }
            return zoneError(name, owner: userKey, code: "ZONE_NOT_FOUND", reason: "Zone does not exist")
        }
        return ["zones": .array(zones)]
    }

    mutating func zonesModify(_ userKey: String, _ body: JSONObject) throws(EmulatorError) -> JSONValue {
        guard let operations = body["operations"]?.arrayValue else { throw .badRequest("operations is required") }
        try Self.checkItemCount(operations.count)
        var results: [JSONValue] = []
        for operation in operations {
            let name = operation["zone"]?["zoneID"]?["zoneName"]?.stringValue ?? ""
            guard !name.isEmpty else { throw .badRequest("zone.zoneID.zoneName is required") }
            switch operation["operationType"]?.stringValue {
            case "create":
                // Native CloudKit saves zones as upserts; an existing zone is returned unchanged.
                if users[userKey]?.zones[name] == nil { users[userKey]?.zones[name] = ZoneState(name: name) }
                results.append(zoneJSON(users[userKey]!.zones[name]!, owner: userKey))
            case "delete":
                if name == User.defaultZone {
                    results.append(
                        zoneError(name, owner: userKey, code: "BAD_REQUEST", reason: "Cannot delete the default zone"))
                } else if users[userKey]?.zones.removeValue(forKey: name) != nil {
                    results.append(["zoneID": RecordWire.zoneID(name, owner: userKey), "deleted": true])
                } else {
                    results.append(
                        zoneError(name, owner: userKey, code: "ZONE_NOT_FOUND", reason: "Zone does not exist"))
                }
            default:
                throw .badRequest("operationType must be create or delete")
            }
        }
        return ["zones": .array(results)]
    }

    func zoneJSON(_ zone: ZoneState, owner: String) -> JSONValue {
        [
            "zoneID": RecordWire.zoneID(zone.name, owner: owner),
            "syncToken": .string(Opaque.syncToken(zone: zone.name, sequence: zone.sequence)),
            "atomic": true,
        ]
    }

    private func zoneError(_ name: String, owner: String, code: String, reason: String) -> JSONValue {
        [
            "zoneID": RecordWire.zoneID(name, owner: owner), "reason": .string(reason),
            "serverErrorCode": .string(code),
        ]
    }
}
