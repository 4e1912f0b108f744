import RelayJSON

/// One `/database/1/…` request as the core sees it.
struct DatabaseCall: Sendable {
    var method: String
    var container: String
    var environment: String
    var database: String
    /// `entity/action`, e.g. `records/query`.
    var operation: String
    var apiToken: String?
    var webAuthToken: String?
    var body: [UInt8]
}

/// The answer to a `DatabaseCall`.
struct DatabaseReply: Sendable {
    var status: Int
    var body: [UInt8]
    var contentType = "application/json; charset=UTF-8"
    var headers: [(String, String)] = []
    var rotatedToken: String?

    init(status: Int, json: JSONValue) {
        self.status = status
        body = json.bytes
    }

    /// A JSON answer written already (`WireValue`).
    init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }

    init(status: Int, body: [UInt8], contentType: String) {
        self.status = status
        self.body = body
        self.contentType = contentType
    }

    init(_ error: EmulatorError) { self.init(status: error.status, json: error.body) }
}

/// The operations the emulator serves: method and whether the public database may be used.
enum OperationRoute {
    case usersCaller
    case zonesList
    case zonesLookup
    case zonesModify
    case recordsQuery
    case recordsLookup
    case recordsModify
    case changesZone

    init?(_ operation: String) {
        switch operation {
        case "users/caller": self = .usersCaller
        case "zones/list": self = .zonesList
        case "zones/lookup": self = .zonesLookup
        case "zones/modify": self = .zonesModify
        case "records/query": self = .recordsQuery
        case "records/lookup": self = .recordsLookup
        case "records/modify": self = .recordsModify
        case "changes/zone": self = .changesZone
        default: return nil
        }
    }

    /// GET for the documented GET operations, POST for the rest.
    var method: String {
        switch self {
        case .usersCaller, .zonesList: "GET"
        default: "POST"
        }
    }
}
