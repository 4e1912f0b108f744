import RelayCrypto
import RelayJSON
import RelayStore

/// `CLIENT#<recordID>` / `META`: a client registered through DCR.
///
/// Records made since registrations are deduplicated are keyed by `contentID` (a hash of the
/// registered metadata) and shared by every registration of that metadata. A public client's ID is
/// the record ID. A confidential client's ID is `<recordID>.<nonce>`, one per registration, and its
/// secret is derived from that ID (`TokenHasher.clientSecret`), so nothing per registration is
/// stored (`derived: true`). Older records have a random ID and a stored secret hash.
extension RegisteredClient {
    init?(item: Item) {
        let attributes = item.attributes
        guard item.pk.hasPrefix("CLIENT#"), let uris = attributes.strings("redirect_uris"),
            let method = attributes.string("method").flatMap(AuthMethod.init(rawValue:)),
            let grantTypes = attributes.strings("grant_types"), let issuedAt = attributes.int("issued")
        else { return nil }
        let secretHash = attributes.bytes("secret")
        let derived = attributes["derived"]?.boolValue == true
        guard derived ? (method.usesSecret && secretHash == nil) : (method.usesSecret == (secretHash != nil)) else {
            return nil
        }
        let recordID = String(item.pk.dropFirst(7))
        self.init(
            id: recordID, source: .registration, name: attributes.string("name"),
            redirectURIs: uris,
            authMethod: method, grantTypes: grantTypes, scope: attributes.string("scope").map(ScopeSet.init(text:)),
            secretHash: secretHash, secretPepperVersion: attributes.int("pv"), issuedAt: issuedAt,
            stored: StoredClient(
                recordID: recordID, derivedSecret: derived, createdWindow: attributes.int("cw"),
                used: attributes.int("used") != nil, version: item.version, expiresAt: item.expiresAt,
                owner: attributes.string("ow")),
            preRegistered: attributes["admin"]?.boolValue == true)
    }

    var attributes: JSONObject {
        var attributes: JSONObject = [
            "redirect_uris": .strings(redirectURIs), "method": .string(authMethod.rawValue),
            "grant_types": .strings(grantTypes), "issued": .int(issuedAt),
        ]
        attributes.set("name", name.map(JSONValue.string))
        attributes.set("scope", scope.map { .string($0.text) })
        attributes.set("secret", secretHash.map(JSONValue.bytes))
        attributes.set("pv", secretPepperVersion.map(JSONValue.int))
        if stored?.derivedSecret == true { attributes["derived"] = true }
        if preRegistered { attributes["admin"] = true }
        attributes.set("cw", stored?.createdWindow.map(JSONValue.int))
        attributes.set("ow", stored?.owner.map(JSONValue.string))
        return attributes
    }
}

/// How a DCR client is stored.
struct StoredClient: Sendable, Equatable {
    /// The `CLIENT#` record's ID (the client ID, or its part before `.` for a per-registration ID).
    var recordID: String
    /// Secrets are derived per registration from the client ID rather than stored.
    var derivedSecret: Bool
    /// The day (`ClientCapacity` window) the record was created in, while it is unused.
    var createdWindow: Int?
    /// Whether any registration of it has completed a token exchange.
    var used: Bool
    /// The record's version and expiry when it was read.
    var version: Int
    var expiresAt: Int?
    /// Who registered it, while it is unused: a keyed hash of the address block
    /// (`ClientRegistry.owner`), for `ClientCapacity`'s index by owner; never the address.
    var owner: String? = nil
}

extension RegistrationRequest {
    /// The record ID every registration of exactly this metadata shares: the first 128 bits of
    /// SHA-256 over the validated metadata in a fixed order, base64url (22 characters, the shape
    /// of a random ID). The metadata is what the policy kept (unknown members are dropped), with
    /// the redirect URIs in the order given, so byte-identical registrations of one client match.
    var contentID: String {
        let canonical: JSONValue = [
            "mustdo-relay/client/v1", .string(authMethod.rawValue), .strings(grantTypes),
            name.map(JSONValue.string) ?? .null, scope.map { .string($0.text) } ?? .null, .strings(redirectURIs),
        ]
        return Base64URL.encode(Array(SHA256.hash(canonical.bytes).prefix(16)))
    }
}
