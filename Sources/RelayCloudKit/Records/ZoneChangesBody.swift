import RelayJSON

/// The body of a `changes/zone` response, decoded straight from its bytes as `RecordsBody` decodes the records
/// operations': a long history's listing reads a page of 200 changes on every call, and a `JSONValue` tree of it
/// (objects and arrays per record, field and timestamp) was most of the relay's own time in that listing.
///
/// It decides exactly what `ZoneChanges(json:)` over the parsed body does: the first zone of the `zones` array,
/// its error when it has a `serverErrorCode`, else its records (the first that does not decode is the error), sync
/// token, `moreComing` and owner; a repeated member name counts with its last value; a body that is not JSON is
/// refused as a whole (`nil`).
enum ZoneChangesBody {
    /// The decoded page, its decoding error, or nil when the bytes are not JSON.
    static func decode(_ bytes: [UInt8]) -> Result<ZoneChanges, CloudKitError>? {
        var zone: ZoneMembers?
        let parsed = try? JSONReader.read(bytes) { reader throws(JSONParseError) in
            try reader.readObject { reader, key throws(JSONParseError) in
                guard key == "zones" else { return try reader.skipValue() }
                var first: ZoneMembers?
                var read = false
                let isArray = try reader.readArray { reader throws(JSONParseError) in
                    guard !read else { return try reader.skipValue() }
                    read = true
                    first = try ZoneMembers.read(&reader)
                }
                zone = isArray ? first : nil
            }
        }
        guard parsed != nil else { return nil }
        guard let zone else {
            return .failure(CloudKitError(.invalidResponse, reason: "changes/zone has no zones array"))
        }
        return zone.result()
    }
}

/// The members of a `zones` item the relay reads, each with its last value (all nil when the item is not an
/// object, as a tree's subscripts read it).
private struct ZoneMembers {
    var serverErrorCode: String?
    var reason: String?
    var records: Result<[RecordResult], CloudKitError>?
    var syncToken: String?
    var moreComing: Bool?
    var ownerRecordName: String?

    static func read(_ reader: inout JSONReader) throws(JSONParseError) -> ZoneMembers {
        var zone = ZoneMembers()
        try reader.readObject { reader, key throws(JSONParseError) in
            if key == "serverErrorCode" {
                zone.serverErrorCode = try reader.readString()
            } else if key == "reason" {
                zone.reason = try reader.readString()
            } else if key == "records" {
                zone.records = try RecordsBody.readRecords(&reader)
            } else if key == "syncToken" {
                zone.syncToken = try reader.readString()
            } else if key == "moreComing" {
                zone.moreComing = try reader.readBool()
            } else if key == "zoneID" {
                zone.ownerRecordName = nil
                try reader.readObject { reader, key throws(JSONParseError) in
                    if key == "ownerRecordName" {
                        zone.ownerRecordName = try reader.readString()
                    } else {
                        try reader.skipValue()
                    }
                }
            } else {
                try reader.skipValue()
            }
        }
        return zone
    }

    /// What `ZoneChanges(json:)` makes of the item.
    func result() -> Result<ZoneChanges, CloudKitError> {
        if let code = serverErrorCode {
            return .failure(
                CloudKitError(
                    CloudKitError.Kind.forCode(code, wholeRequest: false) ?? .server, serverErrorCode: code,
                    reason: reason))
        }
        return (records ?? .success([])).map { changes in
            ZoneChanges(
                changes: changes, syncToken: syncToken, moreComing: moreComing ?? false,
                ownerRecordName: ownerRecordName)
        }
    }
}
