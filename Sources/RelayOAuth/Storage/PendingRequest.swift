import RelayJSON
import RelayStore

/// `AUTHREQ#<id>` / `META`: an authorization request waiting for consent and Apple's callback,
/// or a disconnect (or a look at the connections page) waiting for Apple's callback. It lives
/// `pendingRequest` seconds.
struct PendingRequest: Sendable, Equatable {
    /// What the sign-in is for.
    enum Purpose: String, Sendable {
        case authorize
        case disconnect
        /// Apple's confirmation before the connections page lists anything.
        case connections
        /// Signing in to iCloud again for one connection whose CloudKit token died (`Reconnections`).
        case reconnect
    }

    /// `pending` until the person presses the button, then `consented` with `consentedAt`.
    enum Status: String, Sendable {
        case pending
        case consented
    }

    var id: String
    var purpose: Purpose
    var status: Status
    /// The validated request (nil for disconnect and connections). Its scope is what the person
    /// chose once consent is recorded.
    var request: AuthorizationRequest?
    /// How the consent page showed the app (authorize only; the grant keeps it).
    var label: ConnectionLabel?
    /// HMAC of the binding cookie's value.
    var bindingHash: String
    /// HMAC of the CSRF token; removed when used.
    var csrfHash: String?
    /// HMAC of the tab nonce the starting page keeps in `sessionStorage` (`TabBinding`); nil only
    /// in a request stored before it existed, whose callback is refused.
    var tabHash: String?
    var createdAt: Int
    var consentedAt: Int?
    /// How long the person chose to let the connection live (authorize only; recorded with the
    /// consent, nil before it and on requests stored before issue 44: "until I end it").
    var lifetime: ConnectionLifetime?
    /// The grant a `reconnect` sign-in is for, and the keyed hash of the link that opened it (spent
    /// when the person presses "Continue with Apple").
    var grantID: String? = nil
    var linkHash: String? = nil
    /// The store version, for the conditional writes.
    var version: Int

    init(
        id: String, purpose: Purpose, request: AuthorizationRequest?, label: ConnectionLabel? = nil,
        bindingHash: String, csrfHash: String, tabHash: String? = nil, createdAt: Int
    ) {
        self.id = id
        self.purpose = purpose
        self.status = .pending
        self.request = request
        self.label = label
        self.bindingHash = bindingHash
        self.csrfHash = csrfHash
        self.tabHash = tabHash
        self.createdAt = createdAt
        self.consentedAt = nil
        self.version = 0
    }

    init?(item: Item) {
        let a = item.attributes
        guard item.pk.hasPrefix("AUTHREQ#"), let purpose = a.string("purpose").flatMap(Purpose.init(rawValue:)),
            let status = a.string("status").flatMap(Status.init(rawValue:)), let binding = a.string("binding"),
            let created = a.int("created")
        else { return nil }
        id = String(item.pk.dropFirst(8))
        self.purpose = purpose
        self.status = status
        bindingHash = binding
        csrfHash = a.string("csrf")
        tabHash = a.string("tab")
        createdAt = created
        consentedAt = a.int("consented")
        lifetime = a.string(ConnectionLifetime.field).flatMap(ConnectionLifetime.init(rawValue:))
        version = item.version
        grantID = a.string("grant")
        linkHash = a.string("link")
        if purpose == .authorize {
            guard let client = a.string("client"), let redirect = a.string("redirect_uri"),
                let explicit = a.bool("redirect_explicit"), let challenge = a.string("challenge"),
                let resource = a.string("resource"), let scope = a.string("scope")
            else { return nil }
            request = AuthorizationRequest(
                clientID: client, redirectURI: redirect, redirectURIWasExplicit: explicit, state: a.string("state"),
                codeChallenge: challenge, resource: resource, scope: ScopeSet(text: scope))
            label = ConnectionLabel(attributes: a)
        } else {
            request = nil
        }
    }

    var attributes: JSONObject {
        var a: JSONObject = [
            "purpose": .string(purpose.rawValue), "status": .string(status.rawValue), "binding": .string(bindingHash),
            "created": .int(createdAt),
        ]
        a.set("csrf", csrfHash.map(JSONValue.string))
        a.set("tab", tabHash.map(JSONValue.string))
        a.set("consented", consentedAt.map(JSONValue.int))
        a.set(ConnectionLifetime.field, lifetime.map { .string($0.rawValue) })
        a.set("grant", grantID.map(JSONValue.string))
        a.set("link", linkHash.map(JSONValue.string))
        if let request {
            a["client"] = .string(request.clientID)
            a["redirect_uri"] = .string(request.redirectURI)
            a["redirect_explicit"] = .bool(request.redirectURIWasExplicit)
            a.set("state", request.state.map(JSONValue.string))
            a["challenge"] = .string(request.codeChallenge)
            a["resource"] = .string(request.resource)
            a["scope"] = .string(request.scope.text)
        }
        label?.write(into: &a)
        return a
    }
}
