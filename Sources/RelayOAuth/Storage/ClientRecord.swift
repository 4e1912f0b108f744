import RelayJSON
import RelayStore

/// `CLIENT#<id>` / `META`: a client registered through DCR.
extension RegisteredClient {
    init?(item: Item) {
        let attributes = item.attributes
        guard item.pk.hasPrefix("CLIENT#"), let uris = attributes.strings("redirect_uris"),
            let method = attributes.string("method").flatMap(AuthMethod.init(rawValue:)),
            let grantTypes = attributes.strings("grant_types"), let issuedAt = attributes.int("issued")
        else { return nil }
        let secretHash = attributes.bytes("secret")
        guard method.usesSecret == (secretHash != nil) else { return nil }
        self.init(
            id: String(item.pk.dropFirst(7)), source: .registration, name: attributes.string("name"),
            redirectURIs: uris,
            authMethod: method, grantTypes: grantTypes, scope: attributes.string("scope").map(ScopeSet.init(text:)),
            secretHash: secretHash, secretPepperVersion: attributes.int("pv"), issuedAt: issuedAt)
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
        return attributes
    }
}
