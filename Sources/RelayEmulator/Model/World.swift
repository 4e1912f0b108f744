import RelayJSON

/// Everything the emulator knows, as one value. Every operation is a function over it, run under
/// one lock (`EmulatorState`), so the behaviour is easy to test and reason about.
struct World: Sendable {
    /// Users by `userRecordName`.
    var users: [String: User] = [:]
    /// Live sessions by web auth token.
    var sessions: [String: Session] = [:]
    /// Sign-in links handed out in `redirectURL`, with their expiry (ms).
    var pendingSignIns: [String: Int64] = [:]
    /// Counter behind change tags.
    var tagCounter = 1
    /// Whole-request faults waiting to fire, in order.
    var faults: [Fault] = []
    /// Per-item faults for `records/modify`, in order.
    var itemFaults: [ItemFault] = []
    /// Latency added to every database call.
    var latency: Duration = .zero
    /// Shift applied to the clock (tests move time forward to expire sessions).
    var clockOffsetMilliseconds: Int64 = 0
    /// Counters for the control API.
    var stats = Stats()
    /// Run-time behaviour.
    var settings: EmulatorSettings
    /// Where sign-in sends the browser (nil: show the token).
    var callbackURL: String?
    /// The container's schema per environment.
    var schemas: SchemaState

    init(settings: EmulatorSettings, callbackURL: String?, schemas: SchemaState) {
        self.settings = settings
        self.callbackURL = callbackURL
        self.schemas = schemas
    }

    /// Counts a request and samples the open connections.
    mutating func count(openConnections: Int) {
        stats.requests += 1
        stats.peakOpenConnections = max(stats.peakOpenConnections, openConnections)
    }

    mutating func nextChangeTag() -> String {
        tagCounter += 1
        return Opaque.changeTag(tagCounter)
    }

    /// The user for an Apple ID or a `userRecordName`, if known.
    func userKey(_ identifier: String) -> String? {
        if identifier.hasPrefix("_"), users[identifier] != nil { return identifier }
        let key = Opaque.userRecordName(appleID: identifier)
        return users[key] != nil ? key : nil
    }

    /// The user for an Apple ID, created if new with the default zone and (unless `zoneName` is nil, a user
    /// whose app never synced) the custom zone.
    mutating func ensureUser(appleID: String, zoneName: String?, now: Int64) -> String {
        let key = Opaque.userRecordName(appleID: appleID)
        if users[key] == nil {
            var user = User(appleID: Opaque.normalized(appleID), recordName: key)
            user.zones[User.defaultZone] = ZoneState(name: User.defaultZone)
            if let zoneName { user.zones[zoneName] = ZoneState(name: zoneName) }
            user.createdAt = now
            users[key] = user
        }
        return key
    }
}

/// One emulated Apple ID and its private database.
struct User: Sendable {
    static let defaultZone = "_defaultZone"

    var appleID: String
    var recordName: String
    var advancedDataProtection = false
    var webAccessOff = false
    var zones: [String: ZoneState] = [:]
    /// Tokens in the order they were issued (to bound how many stay alive).
    var tokens: [String] = []
    var createdAt: Int64 = 0
}

/// A saved record.
struct StoredRecord: Sendable {
    var recordType: String
    /// Field name → `(type, value)`.
    var fields: [String: StoredField]
    var changeTag: String
    var createdAt: Int64
    var modifiedAt: Int64
    /// The zone sequence of the last change.
    var sequence: Int64
}

/// A field value with its type tag.
struct StoredField: Sendable, Equatable {
    var type: String
    var value: JSONValue
}

/// A web auth token's session.
struct Session: Sendable {
    var userRecordName: String
    /// Expiry in ms since 1970; nil never expires.
    var expiresAt: Int64?
    /// The lifetime a rotation renews to.
    var lifetimeMilliseconds: Int64?
}

/// A whole-request failure waiting to be served.
struct Fault: Sendable {
    enum Body: String, Sendable {
        case json
        case html
        case empty
    }

    var remaining: Int
    var status: Int
    var serverErrorCode: String?
    var reason: String?
    /// `retryAfter` in the JSON body (seconds).
    var retryAfter: Double?
    /// A `Retry-After` header (seconds).
    var retryAfterHeader: Int?
    var body: Body
    /// Operations it applies to (`records/modify`…); nil: all.
    var operations: Set<String>?
}

/// A per-item failure for the next `records/modify` operations.
struct ItemFault: Sendable {
    var remaining: Int
    var serverErrorCode: String
    var reason: String
    var retryAfter: Double?
    /// Only this record; nil: any.
    var recordName: String?
}

/// Counters served by `GET /control/stats`.
struct Stats: Sendable {
    var requests = 0
    var databaseRequests = 0
    var operations: [String: Int] = [:]
    var signIns = 0
    var faultsServed = 0
    var peakOpenConnections = 0
}
