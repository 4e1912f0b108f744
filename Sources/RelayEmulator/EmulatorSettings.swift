import RelayJSON

/// Behaviour where Apple's documentation and the live service disagree, or that tests vary.
/// `GET`/`POST /control/settings` read and change it as JSON with the same member names.
package struct EmulatorSettings: Sendable, Equatable {
    /// What happens to a token after CloudKit rotated it.
    package enum Rotation: String, Sendable {
        /// The old token stops working at once (the documented behaviour; the default).
        case invalidate
        /// The old token keeps working until it expires (seen live, MistKit #462).
        case keep
    }

    /// What an existing session of a user who turns on Advanced Data Protection gets.
    package enum ProtectedSessions: String, Sendable {
        /// The sessions end (web access is switched off): 421 on the next call.
        case expire
        /// The sessions stay but the private database answers 403 ACCESS_DENIED.
        case deny
    }

    /// Old-token behaviour after rotation.
    package var rotation: Rotation = .invalidate
    /// Session lifetime without "keep me signed in" (Apple: 30 minutes); nil never expires.
    package var tokenLifetime: Duration? = .seconds(1800)
    /// Session lifetime with "keep me signed in" (Apple: 2 weeks); nil never expires.
    package var keepSignedInLifetime: Duration? = .seconds(14 * 86_400)
    /// Whether a rotated token starts a fresh lifetime (otherwise it inherits the expiry).
    package var rotationRenewsLifetime = true
    /// Whether error responses to an authenticated call also rotate the token.
    package var rotateOnErrors = false
    /// Status for a dead or unknown token: 421 AUTHENTICATION_REQUIRED (documented) or
    /// 401 AUTHENTICATION_FAILED (what some clients report).
    package var deadTokenStatus = 421
    /// `users/caller` answers `{"users":[…]}` (documented) or a bare identity object.
    package var callerShape = "users"
    /// What a field sent as `{"value": null}` does: `reject` (BAD_REQUEST, the default) or `clear` (the field is
    /// removed). Apple documents neither (`reference/cloudkit-ws.md` §4: "UNCERTAIN whether `update` with
    /// `{"value":null}` clears one field"), so by default the relay must clear with `replace`, as documented.
    package var nullValues = "reject"
    /// The item error for `create` on an existing record: `EXISTS` (documented) or `CONFLICT`.
    package var createExistsCode = "EXISTS"
    /// A failed atomic modify answers 400 with per-record errors (`perRecord`) or one
    /// ATOMIC_ERROR body (`wholeRequest`).
    package var atomicFailure = "perRecord"
    /// A write the schema refuses (unknown type or field, wrong value type) fails as one item's BAD_REQUEST
    /// inside a 200 (`perRecord`, as the native framework reports it: a partial failure) or as the whole
    /// request's 400 BAD_REQUEST (`wholeRequest`). Apple documents neither for Web Services.
    package var schemaErrors = "perRecord"
    /// Records per `changes/zone` page at most.
    package var changesPageSize = 200
    /// Records per `records/query` page at most, whatever `resultsLimit` asks (up to it). Apple documents 200 as
    /// the default and the maximum (WS QueryingRecords, PropertyMetrics); a live report saw pages of 100
    /// (lionheart/openradar-mirror#6710), so the observed 100 is the default and tests also play 200 and less.
    package var queryPageSize = 100
    /// How long a saved or deleted record takes to reach the query indexes: until then
    /// `records/query` matches (and returns) the record as it was before the change (absent if it is new).
    /// Apple: "Query indexes update asynchronously" (CKQueryOperation; WS QueryingRecords advises `records/lookup`
    /// and `changes/zone` for what was just written, and those are never lagged here). On by default; the
    /// lenient schema mode (`--lenient-schema`) has no lag. 0 turns it off.
    package var indexLag: Duration = .milliseconds(3000)
    /// Where a record without the sort field goes in an ascending `records/query` sort (`first` or `last`;
    /// descending reverses it), or whether a sorted query leaves it out (`omitted`). Apple documents none of
    /// them; all three are played.
    package var missingSortValues = "first"
    /// Whether `changes/zone` honours `reverse: true` (newest change first, as documented in WS
    /// FetchingRecordZoneChanges) or ignores it (`ignored`: oldest first, in case the live service does).
    package var reverseChanges = "honoured"
    /// The callback gets percent-encoded tokens (`percent`) or raw ones with `+ / =` (`raw`).
    package var callbackEncoding = "percent"
    /// What existing sessions get when a user is marked Advanced Data Protection.
    package var protectedSessions: ProtectedSessions = .expire

    /// The defaults: documented behaviour.
    package init() {}

    /// The settings as JSON.
    package var json: JSONValue {
        [
            "rotation": .string(rotation.rawValue),
            "tokenLifetimeSeconds": tokenLifetime.map { .int($0.wholeSeconds) } ?? .null,
            "keepSignedInLifetimeSeconds": keepSignedInLifetime.map { .int($0.wholeSeconds) } ?? .null,
            "rotationRenewsLifetime": .bool(rotationRenewsLifetime),
            "rotateOnErrors": .bool(rotateOnErrors),
            "deadTokenStatus": .int(deadTokenStatus),
            "callerShape": .string(callerShape),
            "nullValues": .string(nullValues),
            "createExistsCode": .string(createExistsCode),
            "atomicFailure": .string(atomicFailure),
            "schemaErrors": .string(schemaErrors),
            "changesPageSize": .int(changesPageSize),
            "queryPageSize": .int(queryPageSize),
            "indexLagMilliseconds": .int(indexLag.wholeMilliseconds),
            "missingSortValues": .string(missingSortValues),
            "reverseChanges": .string(reverseChanges),
            "callbackEncoding": .string(callbackEncoding),
            "protectedSessions": .string(protectedSessions.rawValue),
        ]
    }

    /// Applies the members present in `json`; an unknown member or a bad value is an error.
    package mutating func apply(_ json: JSONValue) throws(EmulatorError) {
        guard let object = json.objectValue else { throw .control("settings must be a JSON object") }
        var next = self
        for (key, value) in object {
            switch key {
            case "rotation": next.rotation = try Self.choice(key, value, Rotation.init(rawValue:))
            case "tokenLifetimeSeconds": next.tokenLifetime = try Self.optionalSeconds(key, value)
            case "keepSignedInLifetimeSeconds": next.keepSignedInLifetime = try Self.optionalSeconds(key, value)
            case "rotationRenewsLifetime": next.rotationRenewsLifetime = try Self.bool(key, value)
            case "rotateOnErrors": next.rotateOnErrors = try Self.bool(key, value)
            case "deadTokenStatus":
                next.deadTokenStatus = try Self.choice(key, value) { [401, 421].contains($0) ? $0 : nil }
            case "callerShape":
                next.callerShape = try Self.choice(key, value) { ["users", "bare"].contains($0) ? $0 : nil }
            case "nullValues":
                next.nullValues = try Self.choice(key, value) { ["reject", "clear"].contains($0) ? $0 : nil }
            case "createExistsCode":
                next.createExistsCode = try Self.choice(key, value) { ["EXISTS", "CONFLICT"].contains($0) ? $0 : nil }
            case "atomicFailure":
                next.atomicFailure = try Self.choice(key, value) {
                    ["perRecord", "wholeRequest"].contains($0) ? $0 : nil
                }
            case "schemaErrors":
                next.schemaErrors = try Self.choice(key, value) {
                    ["perRecord", "wholeRequest"].contains($0) ? $0 : nil
                }
            case "changesPageSize":
                next.changesPageSize = try Self.choice(key, value) { (1...200).contains($0) ? $0 : nil }
            case "queryPageSize":
                next.queryPageSize = try Self.choice(key, value) { (1...200).contains($0) ? $0 : nil }
            case "indexLagMilliseconds":
                next.indexLag = try Self.choice(key, value) { (0...600_000).contains($0) ? .milliseconds($0) : nil }
            case "missingSortValues":
                next.missingSortValues = try Self.choice(key, value) {
                    ["first", "last", "omitted"].contains($0) ? $0 : nil
                }
            case "reverseChanges":
                next.reverseChanges = try Self.choice(key, value) { ["honoured", "ignored"].contains($0) ? $0 : nil }
            case "callbackEncoding":
                next.callbackEncoding = try Self.choice(key, value) { ["percent", "raw"].contains($0) ? $0 : nil }
            case "protectedSessions":
                next.protectedSessions = try Self.choice(key, value, ProtectedSessions.init(rawValue:))
            default: throw .control("unknown setting \(key)")
            }
        }
        self = next
    }

    private static func choice<T>(_ key: String, _ value: JSONValue, _ make: (String) -> T?) throws(EmulatorError) -> T
    {
        guard let text = value.stringValue, let result = make(text) else { throw .control("bad value for \(key)") }
        return result
    }

    private static func choice<T>(_ key: String, _ value: JSONValue, _ make: (Int) -> T?) throws(EmulatorError) -> T {
        guard let number = value.intValue, let result = make(number) else { throw .control("bad value for \(key)") }
        return result
    }

    private static func optionalSeconds(_ key: String, _ value: JSONValue) throws(EmulatorError) -> Duration? {
        if value.isNull { return nil }
        guard let seconds = value.intValue, seconds > 0 else { throw .control("bad value for \(key)") }
        return .seconds(seconds)
    }

    /// How long a session signed in now lives on the emulator's millisecond clock (nil: forever).
    func sessionLifetime(keepSignedIn: Bool) -> Int64? {
        (keepSignedIn ? keepSignedInLifetime : tokenLifetime).map { Int64($0.wholeMilliseconds) }
    }

    private static func bool(_ key: String, _ value: JSONValue) throws(EmulatorError) -> Bool {
        guard let flag = value.boolValue else { throw .control("bad value for \(key)") }
        return flag
    }
}
