import RelayJSON
import RelayStore

/// `GRANT#<id>` / `META`: one connection of one user to one client. It holds the sealed CloudKit
/// token (opaque), the refresh-rotation state, and nothing a token-less reader could use to open
/// the sealed token. It is `pending` from Apple's callback until its code is redeemed (expiring
/// with the code), then `active` until `endsAt`. It also keeps how the person saw the connection
/// (`label`) and the day it was last used, for the connections page and `grants list`.
struct GrantRecord: Sendable, Equatable {
    enum State: String, Sendable {
        case pending
        case active
    }

    var id: String
    var userID: String
    var clientID: String
    var scope: ScopeSet
    var resource: String
    var sealed: [UInt8]
    var createdAt: Int
    /// The hard end of the grant and of every token it issues: the person's chosen lifetime within
    /// the operator's longest.
    var endsAt: Int
    /// What the person chose on the consent page (nil on grants made before issue 44: "until I end
    /// it").
    var lifetime: ConnectionLifetime?
    var state: State
    /// Refresh rotation: the generation and hash of the current refresh token, the hash of the
    /// one it replaced, when, and the successor pair sealed under a key only the replaced token
    /// derives (for the idempotent retry within the grace window).
    var refreshGeneration: Int
    var currentRefresh: String?
    var previousRefresh: String?
    var rotatedAt: Int?
    var successor: [UInt8]?
    /// The app's name, origin and redirect host as consent showed them (nil on grants made before
    /// the connections page existed).
    var label: ConnectionLabel?
    /// The last day (UTC, days since the epoch) an MCP request used the grant; written at most
    /// once a day (`UsageRecorder`).
    var lastUsedDay: Int?
    /// Since when the grant waits for its person to sign in to iCloud again (`Reconnections`; read only:
    /// written and cleared by its own conditional updates, never through `attributes`).
    var signInSince: Int? = nil
    var version: Int

    init(
        id: String, userID: String, request: AuthorizationRequest, label: ConnectionLabel?, sealed: [UInt8], now: Int,
        lifetime: Int, chosen: ConnectionLifetime? = nil
    ) {
        self.id = id
        self.userID = userID
        clientID = request.clientID
        scope = request.scope
        resource = request.resource
        self.sealed = sealed
        createdAt = now
        endsAt = now + (chosen ?? .untilEnded).lifetime(within: lifetime)
        self.lifetime = chosen
        state = .pending
        refreshGeneration = 0
        self.label = label
        version = 0
    }

    init?(item: Item) {
        let a = item.attributes
        guard item.pk.hasPrefix("GRANT#"), item.sk == OAuthKeys.meta, let user = a.string("user"),
            let client = a.string("client"), let scope = a.string("scope"), let resource = a.string("resource"),
            let sealed = a.bytes("sealed"), let created = a.int("created"), let ends = a.int("ends"),
            let state = a.string("state").flatMap(State.init(rawValue:)), let generation = a.int("rt_gen")
        else { return nil }
        id = String(item.pk.dropFirst(6))
        userID = user
        clientID = client
        self.scope = ScopeSet(text: scope)
        self.resource = resource
        self.sealed = sealed
        createdAt = created
        endsAt = ends
        lifetime = a.string(ConnectionLifetime.field).flatMap(ConnectionLifetime.init(rawValue:))
        self.state = state
        refreshGeneration = generation
        currentRefresh = a.string("rt_current")
        previousRefresh = a.string("rt_previous")
        rotatedAt = a.int("rt_rotated")
        successor = a.bytes("rt_successor")
        label = ConnectionLabel(attributes: a)
        lastUsedDay = a.int("used_day")
        signInSince = a.int(Reconnections.waitingAttribute)
        version = item.version
    }

    /// What the vault binds and seals against.
    var context: GrantContext { GrantContext(userID: userID, grantID: id) }

    var attributes: JSONObject {
        var a: JSONObject = [
            "user": .string(userID), "client": .string(clientID), "scope": .string(scope.text),
            "resource": .string(resource), "sealed": .bytes(sealed), "created": .int(createdAt), "ends": .int(endsAt),
            "state": .string(state.rawValue), "rt_gen": .int(refreshGeneration),
        ]
        a.set("rt_current", currentRefresh.map(JSONValue.string))
        a.set("rt_previous", previousRefresh.map(JSONValue.string))
        a.set("rt_rotated", rotatedAt.map(JSONValue.int))
        a.set("rt_successor", successor.map(JSONValue.bytes))
        label?.write(into: &a)
        a.set(ConnectionLifetime.field, lifetime.map { .string($0.rawValue) })
        a.set("used_day", lastUsedDay.map(JSONValue.int))
        return a
    }
}
