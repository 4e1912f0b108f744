import RelayJSON
import RelayStore

/// `CODE#<hash>` / `META`: an authorization code. `issued` → `redeeming` (the one conditional
/// write that wins the code) → `redeemed` (kept `redeemedCode` seconds so that a replay can
/// revoke the grant).
struct CodeRecord: Sendable, Equatable {
    enum State: String, Sendable {
        case issued
        case redeeming
        case redeemed
    }

    var grantID: String
    var clientID: String
    var redirectURI: String
    var redirectURIWasExplicit: Bool
    var codeChallenge: String
    var resource: String
    var scope: ScopeSet
    var state: State
    /// The grant secret bound to the code; dropped once redeemed.
    var bound: [UInt8]?
    /// The pepper the key hash was made with.
    var pepperVersion: Int
    var version: Int

    init(grantID: String, request: AuthorizationRequest, bound: [UInt8], pepperVersion: Int) {
        self.grantID = grantID
        self.pepperVersion = pepperVersion
        clientID = request.clientID
        redirectURI = request.redirectURI
        redirectURIWasExplicit = request.redirectURIWasExplicit
        codeChallenge = request.codeChallenge
        resource = request.resource
        scope = request.scope
        state = .issued
        self.bound = bound
        version = 0
    }

    init?(item: Item) {
        let a = item.attributes
        guard let grant = a.string("grant"), let client = a.string("client"), let redirect = a.string("redirect_uri"),
            let explicit = a.bool("redirect_explicit"), let challenge = a.string("challenge"),
            let resource = a.string("resource"), let scope = a.string("scope"),
            let state = a.string("state").flatMap(State.init(rawValue:)), let pepper = a.int("pv")
        else { return nil }
        pepperVersion = pepper
        grantID = grant
        clientID = client
        redirectURI = redirect
        redirectURIWasExplicit = explicit
        codeChallenge = challenge
        self.resource = resource
        self.scope = ScopeSet(text: scope)
        self.state = state
        bound = a.bytes("bound")
        version = item.version
    }

    var attributes: JSONObject {
        var a: JSONObject = [
            "grant": .string(grantID), "client": .string(clientID), "redirect_uri": .string(redirectURI),
            "redirect_explicit": .bool(redirectURIWasExplicit), "challenge": .string(codeChallenge),
            "resource": .string(resource), "scope": .string(scope.text), "state": .string(state.rawValue),
            "pv": .int(pepperVersion),
        ]
        a.set("bound", bound.map(JSONValue.bytes))
        return a
    }
}
