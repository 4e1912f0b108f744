import RelayJSON

/// The state file's JSON: users (flags, zones, records), sessions, the tag counter, and the development schema
/// (production's comes from the configuration, never from the file).
enum StateSnapshot {
    static func encode(_ world: borrowing World) -> JSONValue {
        var users: [JSONValue] = []
        for user in world.users.values.sorted(by: { $0.recordName < $1.recordName }) {
            var zones: [JSONValue] = []
            for zone in user.zones.values.sorted(by: { $0.name < $1.name }) {
                var records = JSONObject()
                for (name, record) in zone.records.sorted(by: { $0.key < $1.key }) {
                    var fields = JSONObject()
                    for (key, field) in record.fields.sorted(by: { $0.key < $1.key }) {
                        fields[key] = ["type": .string(field.type), "value": field.value]
                    }
                    records[name] = [
                        "recordType": .string(record.recordType), "changeTag": .string(record.changeTag),
                        "createdAt": .int(Int(record.createdAt)), "modifiedAt": .int(Int(record.modifiedAt)),
                        "sequence": .int(Int(record.sequence)), "fields": .object(fields),
                    ]
                }
                let tombstones = JSONObject(
                    zone.tombstones.sorted { $0.key < $1.key }.map { ($0.key, .int(Int($0.value))) })
                zones.append([
                    "name": .string(zone.name), "sequence": .int(Int(zone.sequence)), "records": .object(records),
                    "tombstones": .object(tombstones),
                ])
            }
            users.append([
                "appleID": .string(user.appleID), "recordName": .string(user.recordName),
                "advancedDataProtection": .bool(user.advancedDataProtection), "webAccessOff": .bool(user.webAccessOff),
                "createdAt": .int(Int(user.createdAt)), "zones": .array(zones),
                "tokens": .array(user.tokens.map { .string($0) }),
            ])
        }
        var sessions = JSONObject()
        for (token, session) in world.sessions {
            sessions[token] = [
                "user": .string(session.userRecordName),
                "expiresAt": session.expiresAt.map { .int(Int($0)) } ?? .null,
                "lifetime": session.lifetimeMilliseconds.map { .int(Int($0)) } ?? .null,
            ]
        }
        return [
            "version": 1, "tagCounter": .int(world.tagCounter), "users": .array(users), "sessions": .object(sessions),
            "developmentSchema": .string(world.schemas.development.text),
        ]
    }

    static func decode(_ bytes: [UInt8], into world: inout World) throws(EmulatorError) {
        let json: JSONValue
        do { json = try JSONValue(parsing: bytes, maxDepth: 128) } catch { throw .control("not JSON") }
        guard json["version"]?.intValue == 1 else { throw .control("unknown version") }
        world.tagCounter = json["tagCounter"]?.intValue ?? 1
        // What development saves added to the schema; a file from before schemas were kept has none.
        if let text = json["developmentSchema"]?.stringValue {
            let saved = try ContainerSchema(parsing: text)
            for (name, type) in saved.recordTypes {
                for (field, definition) in type.fields
                where world.schemas.development.recordTypes[name]?.fields[field] == nil {
                    if world.schemas.development.recordTypes[name] == nil {
                        world.schemas.development.recordTypes[name] = ContainerSchema.RecordType(name: name)
                    }
                    world.schemas.development.recordTypes[name]?.fields[field] = definition
                }
            }
        }
        for item in json["users"]?.arrayValue ?? [] {
            guard let appleID = item["appleID"]?.stringValue, let key = item["recordName"]?.stringValue else {
                throw .control("a user without appleID/recordName")
            }
            var user = User(appleID: appleID, recordName: key)
            user.advancedDataProtection = item["advancedDataProtection"]?.boolValue ?? false
            user.webAccessOff = item["webAccessOff"]?.boolValue ?? false
            user.createdAt = Int64(item["createdAt"]?.intValue ?? 0)
            user.tokens = item["tokens"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for zoneJSON in item["zones"]?.arrayValue ?? [] {
                user.zones[zoneJSON["name"]?.stringValue ?? ""] = try zone(zoneJSON)
            }
            world.users[key] = user
        }
        for (token, session) in json["sessions"]?.objectValue ?? [:] {
            guard let user = session["user"]?.stringValue else { continue }
            world.sessions[token] = Session(
                userRecordName: user, expiresAt: session["expiresAt"]?.intValue.map(Int64.init),
                lifetimeMilliseconds: session["lifetime"]?.intValue.map(Int64.init))
        }
    }

    private static func zone(_ json: JSONValue) throws(EmulatorError) -> ZoneState {
        guard let name = json["name"]?.stringValue else { throw .control("a zone without a name") }
        var records: [String: StoredRecord] = [:]
        for (recordName, record) in json["records"]?.objectValue ?? [:] {
            var fields: [String: StoredField] = [:]
            for (key, field) in record["fields"]?.objectValue ?? [:] {
                guard let type = field["type"]?.stringValue, let value = field["value"] else { continue }
                fields[key] = StoredField(type: type, value: value)
            }
            records[recordName] = StoredRecord(
                recordType: record["recordType"]?.stringValue ?? "", fields: fields,
                changeTag: record["changeTag"]?.stringValue ?? "1",
                createdAt: Int64(record["createdAt"]?.intValue ?? 0),
                modifiedAt: Int64(record["modifiedAt"]?.intValue ?? 0),
                sequence: Int64(record["sequence"]?.intValue ?? 0))
        }
        var tombstones: [String: Int64] = [:]
        for (recordName, sequence) in json["tombstones"]?.objectValue ?? [:] {
            tombstones[recordName] = Int64(sequence.intValue ?? 0)
        }
        return ZoneState(
            name: name, sequence: Int64(json["sequence"]?.intValue ?? 0), records: records, tombstones: tombstones)
    }
}
