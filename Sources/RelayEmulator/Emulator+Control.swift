import RelayJSON

/// The control API for code in the same process (tests, the demo, benchmarks). Each method does
/// what the `/control/…` endpoint of the same name does.
extension Emulator {
    /// What an injected whole-request failure's body is.
    package enum FaultBody: String, Sendable {
        /// CloudKit's JSON error dictionary.
        case json
        /// An HTML page (what a proxy in front of CloudKit sends).
        case html
        /// Nothing.
        case empty
    }

    /// The `userRecordName` an Apple ID signs in as.
    package static func userRecordName(appleID: String) -> String { Opaque.userRecordName(appleID: appleID) }

    /// Changes where sign-in sends the browser (nil: show the token on a page).
    package func setCallbackURL(_ url: String?) {
        state.update(changed: false) { world, _ in world.callbackURL = url }
    }

    /// Adds latency to every database call.
    package func setLatency(milliseconds: Int) {
        state.update(changed: false) { world, _ in world.latency = .milliseconds(max(0, milliseconds)) }
    }

    /// Fails the next `count` database calls (of `operations`, or any) with `status`.
    /// `serverErrorCode` defaults from the status (429 THROTTLED, 503 TRY_AGAIN_LATER, …).
    package func injectFault(
        status: Int, serverErrorCode: String? = nil, reason: String? = nil, retryAfter: Double? = nil,
        retryAfterHeader: Int? = nil, body: FaultBody = .json, count: Int = 1, operations: [String]? = nil
    ) {
        let fault = Fault(
            remaining: max(1, count), status: status, serverErrorCode: serverErrorCode, reason: reason,
            retryAfter: retryAfter, retryAfterHeader: retryAfterHeader,
            body: Fault.Body(rawValue: body.rawValue) ?? .json,
            operations: operations.map(Set.init))
        state.update(changed: false) { world, _ in world.faults.append(fault) }
    }

    /// Fails the next `count` `records/modify` operations (on `recordName`, or any) with a
    /// per-item error inside a 200.
    package func injectItemFault(
        serverErrorCode: String = "CONFLICT", reason: String? = nil, count: Int = 1, recordName: String? = nil
    ) {
        var description: JSONObject = ["serverErrorCode": .string(serverErrorCode), "count": .int(max(1, count))]
        if let reason { description["reason"] = .string(reason) }
        if let recordName { description["recordName"] = .string(recordName) }
        guard let fault = try? World.itemFault(.object(description)) else { return }
        state.update(changed: false) { world, _ in world.itemFaults.append(fault) }
    }

    /// Drops every pending fault.
    package func clearFaults() {
        state.update(changed: false) { world, _ in
            world.faults.removeAll()
            world.itemFaults.removeAll()
        }
    }

    /// Ends the sessions of one user (Apple ID or `userRecordName`), or of everyone.
    @discardableResult
    package func expireSessions(user: String? = nil) throws(EmulatorError) -> Int {
        try state.withWorld { world, _ throws(EmulatorError) in
            let key = try user.map { (id: String) throws(EmulatorError) in try world.knownUser(id) }
            return world.expireSessions(userKey: key)
        }
    }

    /// Marks a user (created if new) as having Advanced Data Protection or web access off, so
    /// sign-in fails as Apple's does.
    package func setUserFlags(
        _ user: String, advancedDataProtection: Bool? = nil, webAccessOff: Bool? = nil
    ) throws(EmulatorError) {
        let zoneName = configuration.zoneAtSignIn
        try state.withWorld { world, now throws(EmulatorError) in
            let key = try world.controlUser(user, zoneName: zoneName, now: now)
            world.setFlags(key, advancedDataProtection: advancedDataProtection, webAccessOff: webAccessOff)
        }
    }

    /// Signs a user in without the page (created if new): their record name and a web auth token.
    package func createSession(
        appleID: String, keepSignedIn: Bool = false
    ) throws(EmulatorError) -> (userRecordName: String, webAuthToken: String) {
        let zoneName = configuration.zoneAtSignIn
        return try state.withWorld { world, now throws(EmulatorError) in
            let key = try world.controlUser(appleID, zoneName: zoneName, now: now)
            let lifetime = world.settings.sessionLifetime(keepSignedIn: keepSignedIn)
            return (key, world.mintSession(userKey: key, lifetime: lifetime, now: now))
        }
    }

    /// A user's records in a zone (default: the configured zone), as the wire shows them.
    package func records(of user: String, zone: String? = nil, recordType: String? = nil) throws(EmulatorError)
        -> [JSONValue]
    {
        let zoneName = zone ?? configuration.zoneName
        return try state.withWorld(changed: false) { world, _ throws(EmulatorError) in
            let key = try world.knownUser(user)
            return try world.recordsJSON(key, zone: zoneName, recordType: recordType)["records"]?.arrayValue ?? []
        }
    }

    /// The record names a `records/query` of `recordType` (with `field` EQUALS `value` when given, sorted ascending
    /// by `sortField` when given) matches now in the configured zone, every page: what the query indexes hold, which may lag the writes
    /// (`EmulatorSettings.indexLag`).
    package func query(
        _ user: String, recordType: String, where field: String? = nil, equals value: String? = nil,
        sortedBy sortField: String? = nil
    ) throws(EmulatorError) -> [String] {
        let zoneName = configuration.zoneName
        return try state.withWorld(changed: false) { world, now throws(EmulatorError) in
            let key = try world.knownUser(user)
            var query: JSONObject = ["recordType": .string(recordType)]
            if let field, let value {
                query["filterBy"] = [
                    ["comparator": "EQUALS", "fieldName": .string(field), "fieldValue": ["value": .string(value)]]
                ]
            }
            if let sortField { query["sortBy"] = [["fieldName": .string(sortField), "ascending": true]] }
            var body: JSONObject = ["zoneID": ["zoneName": .string(zoneName)], "query": .object(query)]
            var names: [String] = []
            while true {
                let page = try world.recordsQuery(key, body, now, mode: .lenient).json
                names += page["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } ?? []
                guard let marker = page["continuationMarker"] else { return names }
                body["continuationMarker"] = marker
            }
        }
    }

    /// Every page `records/query` answers now for `query` (a request's `query` object) in the configured zone, as
    /// the wire shows them (records and continuation marker), read from the zone's sort indexes or, with `scan`,
    /// from every record: the reference the indexes are tested against.
    package func queryPages(
        _ user: String, query: JSONValue, resultsLimit: Int? = nil, scan: Bool
    ) throws(EmulatorError) -> [JSONValue] {
        let zoneName = configuration.zoneName
        return try state.withWorld(changed: false) { world, now throws(EmulatorError) in
            let key = try world.knownUser(user)
            var body: JSONObject = ["zoneID": ["zoneName": .string(zoneName)], "query": query]
            if let resultsLimit { body["resultsLimit"] = .int(resultsLimit) }
            var pages: [JSONValue] = []
            while true {
                let page = try world.recordsQuery(key, body, now, mode: .lenient, scan: scan).json
                pages.append(page)
                guard let marker = page["continuationMarker"] else { return pages }
                body["continuationMarker"] = marker
            }
        }
    }

    /// Writes records (`{recordName, recordType, fields}` each) for a user, created if new;
    /// returns them as saved, with change tags.
    @discardableResult
    package func seed(_ user: String, records: [JSONValue], zone: String? = nil) throws(EmulatorError) -> [JSONValue] {
        let zoneName = configuration.zoneName
        let zoneAtSignIn = configuration.zoneAtSignIn
        return try state.withWorld { world, now throws(EmulatorError) in
            let key = try world.controlUser(user, zoneName: zoneAtSignIn, now: now)
            return try world.seed(key, zone: zone ?? zoneName, records: records, now: now)["records"]?.arrayValue ?? []
        }
    }

    /// Moves the emulator's clock forward (to expire sessions without waiting).
    package func advanceClock(seconds: Int) {
        state.update(changed: false) { world, _ in world.clockOffsetMilliseconds += Int64(max(0, seconds)) * 1000 }
    }

    /// The schema a call to `environment` (`production` or `development`) sees now: production's as
    /// configured, development's with what saves added.
    package func schema(environment: String = "production") -> ContainerSchema {
        state.update(changed: false) { world, _ in world.schemas.schema(world.schemas.mode(environment)) }
    }

    /// The current settings.
    package var settings: EmulatorSettings { state.update(changed: false) { world, _ in world.settings } }

    /// Changes settings.
    package func updateSettings(_ change: (inout EmulatorSettings) -> Void) {
        state.update(changed: false) { world, _ in change(&world.settings) }
    }

    /// Counters: requests, database requests per operation, sign-ins, faults, connections.
    package func statistics() -> JSONValue {
        let open = port > 0 ? openConnections : 0
        return state.update(changed: false) { world, _ in world.statsJSON(openConnections: open) }
    }
}
