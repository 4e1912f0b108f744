import RelayJSON

/// A CloudKit record: name, type, change tag and typed fields.
package struct Record: Sendable, Equatable {
    /// The record name (unique in its zone).
    package var recordName: String
    /// The record type, e.g. `Todo`. Empty on records that only name a record (deletes).
    package var recordType: String
    /// The server's version tag; send it back to update, replace or delete with a conflict check.
    package var recordChangeTag: String?
    /// Field values by field name.
    package var fields: [String: FieldValue]
    /// When the record was created, in milliseconds since 1970 (responses only).
    package var createdAt: Int64?
    /// When the record was last modified, in milliseconds since 1970 (responses only).
    package var modifiedAt: Int64?

    /// A record.
    package init(
        recordName: String,
        recordType: String,
        recordChangeTag: String? = nil,
        fields: [String: FieldValue] = [:],
        createdAt: Int64? = nil,
        modifiedAt: Int64? = nil
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.recordChangeTag = recordChangeTag
        self.fields = fields
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    /// Decodes a record dictionary from a response.
    package init(json: JSONValue) throws(CloudKitError) {
        guard let name = json["recordName"]?.stringValue else {
            throw CloudKitError(.invalidResponse, reason: "a record has no recordName")
        }
        recordName = name
        recordType = json["recordType"]?.stringValue ?? ""
        recordChangeTag = json["recordChangeTag"]?.stringValue
        var fields: [String: FieldValue] = [:]
        if let object = json["fields"]?.objectValue {
            for (key, value) in object { fields[key] = try FieldValue(json: value) }
        }
        self.fields = fields
        createdAt = json["created"]?["timestamp"]?.intValue.map(Int64.init)
        modifiedAt = json["modified"]?["timestamp"]?.intValue.map(Int64.init)
    }

    /// The request form: name, type (if any), change tag (if any), fields sorted by name.
    package var json: JSONValue {
        var object: JSONObject = ["recordName": .string(recordName)]
        if !recordType.isEmpty { object["recordType"] = .string(recordType) }
        if let recordChangeTag { object["recordChangeTag"] = .string(recordChangeTag) }
        object["fields"] = .object(JSONObject(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) }))
        return .object(object)
    }
}

/// One item of a `records` array in a response: a record, a deletion, or an item error.
package enum RecordResult: Sendable, Equatable {
    /// A record (saved, found, or changed).
    case record(Record)
    /// A deletion (`deleted: true`), or a tombstone in a change feed.
    case deleted(recordName: String)
    /// The item failed; the rest of the request may have succeeded.
    case failure(CloudKitError)

    /// The record name the item is about (nil only for an error without one).
    package var recordName: String? {
        switch self {
        case .record(let record): record.recordName
        case .deleted(let name): name
        case .failure(let error): error.recordName
        }
    }

    /// The record, when the item is one.
    package var record: Record? {
        if case .record(let record) = self { return record }
        return nil
    }

    /// The error, when the item failed.
    package var error: CloudKitError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    /// Decodes one item: anything with `serverErrorCode` is an error (as CloudKit JS decides).
    init(json: JSONValue) throws(CloudKitError) {
        if let code = json["serverErrorCode"]?.stringValue {
            self = .failure(
                CloudKitError(
                    CloudKitError.Kind.forCode(code, wholeRequest: false) ?? .server,
                    serverErrorCode: code,
                    reason: json["reason"]?.stringValue,
                    retryAfter: RetryAfter.duration(json["retryAfter"]),
                    redirectURL: json["redirectURL"]?.stringValue ?? json["redirectUrl"]?.stringValue,
                    recordName: json["recordName"]?.stringValue
                ))
        } else if json["deleted"]?.boolValue == true {
            guard let name = json["recordName"]?.stringValue else {
                throw CloudKitError(.invalidResponse, reason: "a deleted record has no recordName")
            }
            self = .deleted(recordName: name)
        } else {
            self = .record(try Record(json: json))
        }
    }

    static func list(_ json: JSONValue?) throws(CloudKitError) -> [RecordResult] {
        guard let items = json?.arrayValue else {
            throw CloudKitError(.invalidResponse, reason: "the response has no records array")
        }
        var results: [RecordResult] = []
        results.reserveCapacity(items.count)
        for item in items { results.append(try RecordResult(json: item)) }
        return results
    }
}
