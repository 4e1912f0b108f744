import RelayJSON

/// Records and fields on the wire, both directions.
enum RecordWire {
    /// Options that shape a rendered record.
    struct Options {
        var desiredKeys: Set<String>?
        var numbersAsStrings = false

        /// Every field, numbers as numbers: the form a zone keeps its records in (`ZoneState.renderedRecord`).
        var isDefault: Bool { desiredKeys == nil && !numbersAsStrings }
    }

    /// A full record as responses carry it (fields sorted by name).
    static func render(
        _ name: String, _ record: StoredRecord, zone: String, owner: String, options: Options
    ) -> JSONValue {
        var fields = JSONObject()
        for (key, field) in record.fields.sorted(by: { $0.key < $1.key })
        where options.desiredKeys?.contains(key) ?? true {
            fields[key] = [
                "value": value(field, numbersAsStrings: options.numbersAsStrings), "type": .string(field.type),
            ]
        }
        let created: JSONValue = [
            "timestamp": .int(Int(record.createdAt)), "userRecordName": .string(owner), "deviceID": "EMULATOR",
        ]
        let modified: JSONValue = [
            "timestamp": .int(Int(record.modifiedAt)), "userRecordName": .string(owner), "deviceID": "EMULATOR",
        ]
        return [
            "recordName": .string(name),
            "recordType": .string(record.recordType),
            "recordChangeTag": .string(record.changeTag),
            "fields": .object(fields),
            "pluginFields": [:],
            "created": created,
            "modified": modified,
            "deleted": false,
            "zoneID": zoneID(zone, owner: owner),
        ]
    }

    /// `{zoneName, ownerRecordName, zoneType}`.
    static func zoneID(_ zone: String, owner: String) -> JSONValue {
        [
            "zoneName": .string(zone), "ownerRecordName": .string(owner),
            "zoneType": .string(zone == User.defaultZone ? "DEFAULT_ZONE" : "REGULAR_CUSTOM_ZONE"),
        ]
    }

    /// A per-item error dictionary.
    static func itemError(_ recordName: String?, code: String, reason: String, retryAfter: Double? = nil) -> JSONValue {
        var object: JSONObject = [:]
        if let recordName { object["recordName"] = .string(recordName) }
        object["reason"] = .string(reason)
        object["serverErrorCode"] = .string(code)
        object["uuid"] = .string(Opaque.uuid())
        if let retryAfter { object["retryAfter"] = .double(retryAfter) }
        return .object(object)
    }

    private static func value(_ field: StoredField, numbersAsStrings: Bool) -> JSONValue {
        guard numbersAsStrings, field.type == "INT64" || field.type == "DOUBLE" else { return field.value }
        switch field.value {
        case .int(let number): return .string(String(number))
        case .double(let number): return .string(String(number))
        default: return field.value
        }
    }

    /// The type tags Web Services knows (`reference/cloudkit-ws.md` §4), alone and as `_LIST`.
    static let knownTags: Set<String> = {
        let elements = [
            "STRING", "INT64", "DOUBLE", "TIMESTAMP", "BYTES", "REFERENCE", "LOCATION", "ASSET", "ASSETID",
            "ENCRYPTED_BYTES",
        ]
        return Set(elements + elements.map { $0 + "_LIST" })
    }()

    /// Refuses, for the whole request, records whose fields are not `{value, type?}` with a known type tag, and
    /// LOCATION values without latitude and longitude: they fail where the request is read, before any
    /// operation runs. Apple answered an unknown tag (`"LIST"`) and fields it could not read with
    /// "BadRequestException: Unexpected input" (typescriptlibs/tsl-apple-cloudkit#25, malhal/CloudKit-PHP#5);
    /// that a LOCATION without coordinates gets the same answer is an assumption.
    static func checkShapes(_ records: [JSONValue]) throws(EmulatorError) {
        for record in records {
            guard let fields = record["fields"], !fields.isNull else { continue }
            guard let object = fields.objectValue else { throw unexpectedInput }
            for (_, wrapper) in object {
                guard let wrapper = wrapper.objectValue, let value = wrapper["value"] else { throw unexpectedInput }
                guard let type = wrapper["type"] else { continue }
                guard let tag = type.stringValue, knownTags.contains(tag) else { throw unexpectedInput }
                if tag == "LOCATION", !value.isNull, !isLocation(value) { throw unexpectedInput }
                if tag == "LOCATION_LIST", let items = value.arrayValue, !items.allSatisfy(isLocation) {
                    throw unexpectedInput
                }
            }
        }
    }

    static let unexpectedInput = EmulatorError.badRequest("Unexpected input")

    /// A Location dictionary: `latitude` and `longitude` are required (Types, "Location Dictionary").
    static func isLocation(_ value: JSONValue) -> Bool {
        value["latitude"]?.doubleValue != nil && value["longitude"]?.doubleValue != nil
    }

    static func inferredType(_ value: JSONValue) -> String? {
        switch value {
        case .string: "STRING"
        case .int: "INT64"
        case .double: "DOUBLE"
        case .object(let object) where object["recordName"] != nil: "REFERENCE"
        case .array(let items):
            switch items.first {
            case .string?: "STRING_LIST"
            case .int?: "INT64_LIST"
            case .double?: "DOUBLE_LIST"
            default: nil
            }
        default: nil
        }
    }

    /// The value in canonical form for its type, or nil when it does not fit.
    static func normalize(_ value: JSONValue, type: String) -> JSONValue? {
        if type.hasSuffix("_LIST") {
            guard let items = value.arrayValue else { return nil }
            let element = String(type.dropLast(5))
            var normalized: [JSONValue] = []
            for item in items {
                guard let one = normalize(item, type: element) else { return nil }
                normalized.append(one)
            }
            return .array(normalized)
        }
        // (No `cond ? nil : value` here: JSONValue is ExpressibleByNilLiteral, so that nil would be `.null`.)
        let fits: Bool
        switch type {
        case "STRING", "BYTES", "ENCRYPTED_BYTES": fits = value.stringValue != nil
        case "INT64", "TIMESTAMP": return value.intValue.map { .int($0) }
        case "DOUBLE": return value.doubleValue.map { .double($0) }
        case "REFERENCE": fits = value["recordName"]?.stringValue != nil
        case "LOCATION": fits = isLocation(value)
        case "ASSET", "ASSETID": fits = value.objectValue != nil
        default: fits = false
        }
        return fits ? .some(value) : .none
    }

    /// `desiredKeys` as a set; absent or null means all fields.
    static func desiredKeys(_ json: JSONValue?) -> Set<String>? {
        guard let items = json?.arrayValue else { return nil }
        return Set(items.compactMap(\.stringValue))
    }

    /// The zone a body names (`zoneID.zoneName`), `_defaultZone` when none.
    static func zoneName(_ body: JSONObject) -> String {
        body["zoneID"]?["zoneName"]?.stringValue ?? User.defaultZone
    }
}
