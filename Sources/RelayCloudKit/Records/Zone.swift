import RelayJSON

/// A record zone as `zones/list` and `zones/modify` describe it.
package struct Zone: Sendable, Equatable {
    /// The zone name (`_defaultZone` for the default zone).
    package var zoneName: String
    /// The owner's user record name.
    package var ownerRecordName: String?
    /// `REGULAR_CUSTOM_ZONE` or `DEFAULT_ZONE`.
    package var zoneType: String?
    /// The zone's current sync token.
    package var syncToken: String?

    /// A zone.
    package init(zoneName: String, ownerRecordName: String? = nil, zoneType: String? = nil, syncToken: String? = nil) {
        self.zoneName = zoneName
        self.ownerRecordName = ownerRecordName
        self.zoneType = zoneType
        self.syncToken = syncToken
    }

    init(json: JSONValue) throws(CloudKitError) {
        guard let zoneID = json["zoneID"], let name = zoneID["zoneName"]?.stringValue else {
            throw CloudKitError(.invalidResponse, reason: "a zone has no zoneID")
        }
        zoneName = name
        ownerRecordName = zoneID["ownerRecordName"]?.stringValue
        zoneType = zoneID["zoneType"]?.stringValue
        syncToken = json["syncToken"]?.stringValue
    }
}

/// One page of a zone's change feed (`changes/zone`).
package struct ZoneChanges: Sendable, Equatable {
    /// Changed records (`.record`) and deletions (`.deleted`), oldest change first.
    package var changes: [RecordResult]
    /// Where the next call continues; store it.
    package var syncToken: String?
    /// More changes wait: call again with `syncToken`.
    package var moreComing: Bool
    /// The zone's owner (`zoneID.ownerRecordName`: the signed-in user's record name), when the reply names it.
    package var ownerRecordName: String?

    /// A page of changes.
    package init(changes: [RecordResult], syncToken: String?, moreComing: Bool, ownerRecordName: String? = nil) {
        self.changes = changes
        self.syncToken = syncToken
        self.moreComing = moreComing
        self.ownerRecordName = ownerRecordName
    }

    /// The page in a parsed `changes/zone` body (its first zone): the tree-based reference `ZoneChangesBody`
    /// decodes the bytes as.
    init(json: JSONValue) throws(CloudKitError) {
        guard let item = json["zones"]?.arrayValue?.first else {
            throw CloudKitError(.invalidResponse, reason: "changes/zone has no zones array")
        }
        if let code = item["serverErrorCode"]?.stringValue {
            throw CloudKitError(
                CloudKitError.Kind.forCode(code, wholeRequest: false) ?? .server,
                serverErrorCode: code, reason: item["reason"]?.stringValue)
        }
        self.init(
            changes: try RecordResult.list(item["records"] ?? .array([])),
            syncToken: item["syncToken"]?.stringValue,
            moreComing: item["moreComing"]?.boolValue ?? false,
            ownerRecordName: item["zoneID"]?["ownerRecordName"]?.stringValue
        )
    }
}

/// The signed-in user as `users/caller` returns it.
package struct CloudKitUser: Sendable, Equatable {
    /// `_` and 32 lowercase hex digits; stable per Apple ID and container.
    package var userRecordName: String

    /// A user.
    package init(userRecordName: String) { self.userRecordName = userRecordName }

    /// Accepts the documented `{"users":[{…}]}` and the bare `{"userRecordName":…}` shapes.
    init(json: JSONValue) throws(CloudKitError) {
        let identity = json["users"]?.arrayValue?.first ?? json
        guard let name = identity["userRecordName"]?.stringValue, !name.isEmpty else {
            throw CloudKitError(.invalidResponse, reason: "users/caller returned no userRecordName")
        }
        userRecordName = name
    }
}
