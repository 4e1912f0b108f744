import RelayJSON

/// The body of a `records/lookup`, `records/query` or `records/modify` response, decoded straight
/// from its bytes: only the members the relay reads become values; no `JSONValue` tree of the
/// whole response (an object and an array per record, per field and per timestamp) is built and
/// thrown away on every tool call.
///
/// It decides exactly what `RecordResult.list(JSONValue(parsing: body)["records"])` does: a body
/// that is not JSON is refused as a whole (`nil`), whatever it held before the fault; a repeated
/// member name counts with its last value, at its first position; the first item (in order) that
/// does not decode is the error, with the same kind and reason. The tree-based decoders
/// (`RecordResult(json:)`, `Record(json:)`, `FieldValue(json:)`, `ZoneChanges(json:)`) stay as the
/// reference the tests compare this (and `ZoneChangesBody`) with.
struct RecordsBody: Equatable {
    var results: [RecordResult]
    var continuationMarker: String?

    /// The decoded body, its decoding error, or nil when the bytes are not JSON.
    static func decode(_ bytes: [UInt8]) -> Result<RecordsBody, CloudKitError>? {
        var records: Result<[RecordResult], CloudKitError>?
        var marker: String?
        let parsed = try? JSONReader.read(bytes) { reader throws(JSONParseError) in
            try reader.readObject { reader, key throws(JSONParseError) in
                if key == "records" {
                    records = try readRecords(&reader)
                } else if key == "continuationMarker" {
                    marker = try reader.readString()
                } else {
                    try reader.skipValue()
                }
            }
        }
        guard parsed != nil else { return nil }
        guard let records else {
            return .failure(CloudKitError(.invalidResponse, reason: "the response has no records array"))
        }
        return records.map { RecordsBody(results: $0, continuationMarker: marker) }
    }

    /// A `records` array (`changes/zone` reads it too: `ZoneChangesBody`).
    static func readRecords(_ reader: inout JSONReader) throws(JSONParseError) -> Result<
        [RecordResult], CloudKitError
    > {
        var results: [RecordResult] = []
        var failure: CloudKitError?
        let isArray = try reader.readArray { reader throws(JSONParseError) in
            let item = try ItemMembers.read(&reader)
            // Past the first failure the rest is still read (a later syntax error refuses the body).
            guard failure == nil else { return }
            switch item.result() {
            case .success(let result): results.append(result)
            case .failure(let error): failure = error
            }
        }
        guard isArray else {
            return .failure(CloudKitError(.invalidResponse, reason: "the response has no records array"))
        }
        if let failure { return .failure(failure) }
        return .success(results)
    }
}

/// The members of one `records` item the relay reads, each with its last value.
private struct ItemMembers {
    var isObject = false
    var serverErrorCode: String?
    var reason: String?
    var retryAfter: JSONValue?
    var redirectURL: String?
    var redirectUrl: String?
    var recordName: String?
    var deleted: Bool?
    var recordType: String?
    var recordChangeTag: String?
    var fields: FieldsMembers?
    var created: Int64?
    var modified: Int64?

    static func read(_ reader: inout JSONReader) throws(JSONParseError) -> ItemMembers {
        var item = ItemMembers()
        item.isObject = try reader.readObject { reader, key throws(JSONParseError) in
            if key == "recordName" {
                item.recordName = try reader.readString()
            } else if key == "recordType" {
                item.recordType = try reader.readString()
            } else if key == "recordChangeTag" {
                item.recordChangeTag = try reader.readString()
            } else if key == "fields" {
                item.fields = try FieldsMembers.read(&reader)
            } else if key == "created" {
                item.created = try readTimestamp(&reader)
            } else if key == "modified" {
                item.modified = try readTimestamp(&reader)
            } else if key == "deleted" {
                item.deleted = try reader.readBool()
            } else if key == "serverErrorCode" {
                item.serverErrorCode = try reader.readString()
            } else if key == "reason" {
                item.reason = try reader.readString()
            } else if key == "retryAfter" {
                item.retryAfter = try reader.readValue()
            } else if key == "redirectURL" {
                item.redirectURL = try reader.readString()
            } else if key == "redirectUrl" {
                item.redirectUrl = try reader.readString()
            } else {
                try reader.skipValue()
            }
        }
        return item
    }

    /// `{"timestamp": N, …}`'s integer (as `JSONValue.intValue` reads it), nil otherwise.
    private static func readTimestamp(_ reader: inout JSONReader) throws(JSONParseError) -> Int64? {
        var timestamp: Int64?
        try reader.readObject { reader, key throws(JSONParseError) in
            if key == "timestamp" {
                timestamp = try reader.readValue().intValue.map(Int64.init)
            } else {
                try reader.skipValue()
            }
        }
        return timestamp
    }

    /// What `RecordResult(json:)` makes of the item.
    func result() -> Result<RecordResult, CloudKitError> {
        if let code = serverErrorCode {
            return .success(
                .failure(
                    CloudKitError(
                        CloudKitError.Kind.forCode(code, wholeRequest: false) ?? .server,
                        serverErrorCode: code,
                        reason: reason,
                        retryAfter: RetryAfter.duration(retryAfter),
                        redirectURL: redirectURL ?? redirectUrl,
                        recordName: recordName
                    )))
        }
        if deleted == true {
            guard let recordName else {
                return .failure(CloudKitError(.invalidResponse, reason: "a deleted record has no recordName"))
            }
            return .success(.deleted(recordName: recordName))
        }
        guard let recordName else {
            return .failure(CloudKitError(.invalidResponse, reason: "a record has no recordName"))
        }
        let decodedFields: [String: FieldValue]
        switch fields?.decoded() ?? .success([:]) {
        case .success(let value): decodedFields = value
        case .failure(let error): return .failure(error)
        }
        return .success(
            .record(
                Record(
                    recordName: recordName, recordType: recordType ?? "", recordChangeTag: recordChangeTag,
                    fields: decodedFields, createdAt: created, modifiedAt: modified)))
    }
}

/// A record's `fields` object: each field's decoded value or error, in first-seen order, a repeated
/// name keeping its first position and its last value (as the parsed object would). Errors wait
/// until the item is known to be a record: an error item's fields are never decoded.
///
/// An entry holds the value, or nil with the error kept aside in `failures`.
private struct FieldsMembers {
    var entries: [(name: String, value: FieldValue?)] = []
    var failures: [String: CloudKitError] = [:]

    /// Room reserved for a record's fields at once (MustDo's records have fewer than 24).
    static let reservedEntries = 24

    /// The fields of an object; nil for any other value (read as no fields, like `objectValue`).
    static func read(_ reader: inout JSONReader) throws(JSONParseError) -> FieldsMembers? {
        var fields = FieldsMembers()
        fields.entries.reserveCapacity(reservedEntries)
        let isObject = try reader.readObject { reader, key throws(JSONParseError) in
            let value: FieldValue?
            let name = key.string
            switch try readField(&reader) {
            case .success(let field):
                value = field  // a failure kept for an earlier value of this name is never read
            case .failure(let error):
                value = nil
                fields.failures[name] = error
            }
            if let index = fields.entries.firstIndex(where: { $0.name == name }) {
                fields.entries[index].value = value
            } else {
                fields.entries.append((name, value))
            }
        }
        return isObject ? fields : nil
    }

    /// `{"value": V, "type": T}` decoded as `FieldValue(json:)` does.
    private static func readField(_ reader: inout JSONReader) throws(JSONParseError) -> Result<
        FieldValue, CloudKitError
    > {
        var value: JSONValue?
        var type: String?
        let isObject = try reader.readObject { reader, key throws(JSONParseError) in
            if key == "value" {
                value = try reader.readValue()
            } else if key == "type" {
                type = try reader.readString()
            } else {
                try reader.skipValue()
            }
        }
        guard isObject, let value else {
            return .failure(CloudKitError(.invalidResponse, reason: "a field is not {value, type}"))
        }
        return Result { () throws(CloudKitError) in try FieldValue(value: value, type: type) }
    }

    func decoded() -> Result<[String: FieldValue], CloudKitError> {
        var fields: [String: FieldValue] = [:]
        fields.reserveCapacity(entries.count)
        for (name, value) in entries {
            guard let value else {
                return .failure(failures[name] ?? CloudKitError(.invalidResponse, reason: "a field did not decode"))
            }
            fields[name] = value
        }
        return .success(fields)
    }
}
