import RelayJSON
import RelayStore

/// `TOKEN#<hash>` / `META` (access) and `REFRESH#<hash>` / `META` (refresh): what a presented
/// token maps to. Only the keyed hash of the token is stored, in the key.
struct TokenRecord: Sendable, Equatable {
    /// The key hash (the item's partition key without its prefix).
    var hash: String
    var grantID: String
    var clientID: String
    var scope: ScopeSet
    var resource: String
    /// The grant secret bound to this token (`TokenBinder`).
    var bound: [UInt8]
    /// The refresh generation (refresh tokens only).
    var generation: Int?
    var issuedAt: Int
    var expiresAt: Int
    /// The pepper the hash was made with.
    var pepperVersion: Int

    init(
        hash: String, pepperVersion: Int, grantID: String, clientID: String, scope: ScopeSet, resource: String,
        bound: [UInt8], generation: Int?, issuedAt: Int, expiresAt: Int
    ) {
        self.hash = hash
        self.pepperVersion = pepperVersion
        self.grantID = grantID
        self.clientID = clientID
        self.scope = scope
        self.resource = resource
        self.bound = bound
        self.generation = generation
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    init?(item: Item) {
        let a = item.attributes
        guard let separator = item.pk.firstIndex(of: "#"), let grant = a.string("grant"),
            let client = a.string("client"), let scope = a.string("scope"), let resource = a.string("resource"),
            let bound = a.bytes("bound"), let issued = a.int("issued"), let expires = item.expiresAt,
            let pepper = a.int("pv")
        else { return nil }
        pepperVersion = pepper
        hash = String(item.pk[item.pk.index(after: separator)...])
        grantID = grant
        clientID = client
        self.scope = ScopeSet(text: scope)
        self.resource = resource
        self.bound = bound
        generation = a.int("gen")
        issuedAt = issued
        expiresAt = expires
    }

    var attributes: JSONObject {
        var a: JSONObject = [
            "grant": .string(grantID), "client": .string(clientID), "scope": .string(scope.text),
            "resource": .string(resource), "bound": .bytes(bound), "issued": .int(issuedAt), "pv": .int(pepperVersion),
        ]
        a.set("gen", generation.map(JSONValue.int))
        return a
    }
}
