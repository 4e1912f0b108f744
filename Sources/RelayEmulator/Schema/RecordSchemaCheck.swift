import RelayJSON

/// What the schema does to one saved record: its type and every field must exist (production), or are created
/// (development's just-in-time schema); a value must carry its field's type. Refusals are BAD_REQUEST with the
/// server message Apple's clients have reported where one is known (`docs/cloudkit-emulator.md` lists the
/// sources); the relay must never depend on the wording.
struct RecordSchemaCheck {
    let mode: SchemaMode
    /// `{"value": null}` clears the field (settings `nullValues`), instead of being refused.
    let nullsClear: Bool

    /// The record's fields resolved against `schema` (development and lenient modes add what is missing).
    /// A nil value means "clear this field". Wire-shape problems were refused for the whole request before
    /// (`RecordWire.checkShapes`), so every field here is `{value, type?}` with a known tag.
    func fields(
        _ json: JSONValue?, recordType: String, schema: inout ContainerSchema
    ) throws(EmulatorError) -> [String: StoredField?] {
        if schema.recordTypes[recordType] == nil {
            guard mode.createsSchema else {
                throw Self.refusal("Cannot create new type \(recordType) in production schema")
            }
            guard Self.isName(recordType) else { throw .badRequest("invalid record type name '\(recordType)'") }
            schema.recordTypes[recordType] = ContainerSchema.RecordType(name: recordType)
        }
        var result: [String: StoredField?] = [:]
        for (name, wrapper) in (json?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            let value = wrapper["value"] ?? .null
            let tag = wrapper["type"]?.stringValue
            if value.isNull {
                guard nullsClear else {
                    throw EmulatorError.badRequest(
                        "Invalid value for field '\(name)': null (send replace to clear a field)")
                }
                result[name] = .some(nil)
                continue
            }
            let field = try field(name, tag: tag, value: value, recordType: recordType, schema: &schema)
            let stored = tag ?? field.type.responseTag
            guard let normalized = RecordWire.normalize(value, type: stored) else {
                throw EmulatorError.badRequest(
                    "Invalid value, expected type \(stored) but actual value was \(Self.kind(of: value))")
            }
            result[name] = StoredField(type: stored, value: normalized)
        }
        return result
    }

    /// The schema's field `name`, created in development from the tag (or the value) when missing.
    private func field(
        _ name: String, tag: String?, value: JSONValue, recordType: String, schema: inout ContainerSchema
    ) throws(EmulatorError) -> ContainerSchema.Field {
        if let field = schema.recordTypes[recordType]?.fields[name] {
            if let tag, !field.type.wireTags.contains(tag), mode != .lenient {
                throw Self.refusal(
                    "invalid attempt to set value type \(tag) for field '\(name)' for type '\(recordType)', "
                        + "defined to be: \(field.type.responseTag)")
            }
            return field
        }
        guard mode.createsSchema else {
            throw Self.refusal("Cannot create or modify field '\(name)' in record '\(recordType)' in production schema")
        }
        guard Self.isName(name) else { throw .badRequest("invalid field name '\(name)'") }
        guard let newTag = tag ?? RecordWire.inferredType(value), let type = FieldType.inferred(fromTag: newTag) else {
            throw Self.refusal(
                "cannot use an empty list to initialize a new field (field '\(name)' in record type '\(recordType)' "
                    + "should be more precise)")
        }
        let field = ContainerSchema.Field(name, type)
        schema.recordTypes[recordType]?.fields[name] = field
        return field
    }

    /// A name a save may create. Apple, `CKRecord` `subscript(_:)`: "A key must consist of one or more
    /// alphanumeric characters and must start with a letter. CloudKit permits the use of underscores, but not
    /// spaces." The schema language's identifier rule is the same (and the saved schema must parse back).
    static func isName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
    }

    /// A schema refusal: BAD_REQUEST, Apple's server message as the reason.
    static func refusal(_ reason: String) -> EmulatorError {
        EmulatorError(status: 400, code: "BAD_REQUEST", reason: reason)
    }

    /// How the reason describes a value that does not fit (its kind, never the value itself).
    static func kind(of value: JSONValue) -> String {
        switch value {
        case .string: "a string"
        case .int, .double: "a number"
        case .bool: "a boolean"
        case .array: "a list"
        case .object: "an object"
        default: "null"
        }
    }
}
