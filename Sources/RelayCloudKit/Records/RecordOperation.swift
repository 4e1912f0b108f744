import RelayJSON

/// One operation of a `records/modify` request.
package struct RecordOperation: Sendable, Equatable {
    /// The seven operation types (CloudKit Web Services Reference, ModifyRecords).
    package enum Kind: String, Sendable {
        /// New record; fails if the name exists.
        case create
        /// Change the given fields; needs `recordChangeTag`.
        case update
        /// Update without a conflict check; creates the record if missing.
        case forceUpdate
        /// Replace all fields (left-out fields become null); needs `recordChangeTag`.
        case replace
        /// Replace without a conflict check; creates the record if missing.
        case forceReplace
        /// Delete; needs `recordChangeTag`.
        case delete
        /// Delete without a conflict check.
        case forceDelete
    }

    /// The operation type.
    package var kind: Kind
    /// The record (for deletes only its name and change tag are sent).
    package var record: Record
    /// Fields to return for this record (nil: all).
    package var desiredKeys: [String]?

    /// An operation.
    package init(_ kind: Kind, _ record: Record, desiredKeys: [String]? = nil) {
        self.kind = kind
        self.record = record
        self.desiredKeys = desiredKeys
    }

    var json: JSONValue {
        var recordJSON: JSONValue
        switch kind {
        case .delete, .forceDelete:
            var object: JSONObject = ["recordName": .string(record.recordName)]
            if kind == .delete, let tag = record.recordChangeTag { object["recordChangeTag"] = .string(tag) }
            recordJSON = .object(object)
        default:
            recordJSON = record.json
        }
        var object: JSONObject = ["operationType": .string(kind.rawValue), "record": recordJSON]
        if let desiredKeys { object["desiredKeys"] = .array(desiredKeys.map { .string($0) }) }
        return .object(object)
    }
}
