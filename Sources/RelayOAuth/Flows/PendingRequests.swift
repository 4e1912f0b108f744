import RelayCrypto
import RelayHTTP
import RelayJSON
import RelayStore

/// Pending requests and the browser binding: a cookie per request (its value's HMAC is kept),
/// a CSRF token per form (its HMAC kept, single use), a tab nonce per request (its HMAC kept;
/// `TabBinding`), the consent time, and the one conditional delete that lets exactly one callback
/// continue.
struct PendingRequests: Sendable {
    let context: OAuthContext

    /// What the browser gets for a new pending request.
    struct Created: Sendable {
        var record: PendingRequest
        var cookie: Cookie
        var csrfToken: String
        /// The nonce the page's form carries in `data-tab` for the tab's `sessionStorage`.
        var tabNonce: String
    }

    /// Cookie names: `__Host-mdr_<requestID>` (Secure, Path=/, no Domain), or `mdr_<requestID>` on
    /// the plain-http loopback demo, where browsers refuse `__Host-` and `Secure` cookies.
    var cookiePrefix: String { context.configuration.isLoopbackDemo ? "mdr_" : "__Host-mdr_" }

    func cookieName(_ requestID: String) -> String { cookiePrefix + requestID }

    /// Stores a pending request (with how the consent page shows its app) and returns its cookie
    /// and CSRF token.
    func create(
        purpose: PendingRequest.Purpose, request: AuthorizationRequest?, label: ConnectionLabel? = nil,
        grantID: String? = nil, linkHash: String? = nil
    ) async throws(OAuthError) -> Created {
        let id = context.randomID()
        let binding = Base64URL.encode(SecureRandom.bytes(count: 32))
        let csrf = Base64URL.encode(SecureRandom.bytes(count: 32))
        let tab = TabBinding.newNonce()
        let now = context.now
        var record = PendingRequest(
            id: id, purpose: purpose, request: request, label: label, bindingHash: context.hasher.hash(binding).hash,
            csrfHash: context.hasher.hash(csrf).hash, tabHash: context.hasher.hash(tab).hash, createdAt: now)
        record.grantID = grantID
        record.linkHash = linkHash
        let lifetime = context.configuration.lifetimes.pendingRequest.wholeSeconds
        guard
            let item = try await context.put(
                OAuthKeys.pendingRequest(id), record.attributes, expiresAt: now + lifetime, condition: .absent)
        else { throw OAuthError(.serverError, "A request identifier collided.") }
        record.version = item.version
        let cookie = Cookie(
            name: cookieName(id), value: binding, maxAge: lifetime, secure: !context.configuration.isLoopbackDemo)
        return Created(record: record, cookie: cookie, csrfToken: csrf, tabNonce: tab)
    }

    /// Checks a consent (or disconnect confirmation) POST: the request is pending, this browser
    /// holds its cookie, and the CSRF token is the one the form carried. Then records
    /// `consentedAt`, the scope the person chose (`scope`, already checked against what was asked)
    /// and spends the CSRF token in one conditional write.
    func consent(
        requestID: String, csrf: String?, in request: Request, scope: ScopeSet? = nil,
        lifetime: ConnectionLifetime? = nil
    ) async throws(OAuthError) -> PendingRequest {
        var record = try await bound(requestID: requestID, in: request)
        guard record.status == .pending, let expected = record.csrfHash, let csrf,
            matches(csrf, expected)
        else { throw OAuthError(.bindingMismatch, "The form is stale or was not sent from this page.") }
        record.status = .consented
        record.consentedAt = context.now
        record.csrfHash = nil
        var set: JSONObject = [
            "status": .string(record.status.rawValue), "consented": .int(record.consentedAt ?? 0),
        ]
        if let scope, let asked = record.request?.scope {
            // Checked against this very record too: nothing but a narrowing is ever written.
            guard asked.contains(scope), !scope.tokens.isEmpty else {
                throw OAuthError(.invalidScope, "The chosen access is not one this page offered.")
            }
            record.request?.scope = scope
            set["scope"] = .string(scope.text)
        }
        if let lifetime, record.purpose == .authorize {
            record.lifetime = lifetime
            set[ConnectionLifetime.field] = .string(lifetime.rawValue)
        }
        let update = ItemUpdate(set: set, remove: ["csrf"])
        guard
            let item = try await context.update(
                OAuthKeys.pendingRequest(record.id), update, condition: .versionEquals(record.version))
        else { throw OAuthError(.alreadyUsed, "This form was already sent.") }
        record.version = item.version
        return record
    }

    /// Checks a "Cancel" POST the same way, then deletes the request; returns it.
    func cancel(requestID: String, csrf: String?, in request: Request) async throws(OAuthError) -> PendingRequest {
        let record = try await bound(requestID: requestID, in: request)
        guard record.status == .pending, let expected = record.csrfHash, let csrf,
            matches(csrf, expected)
        else { throw OAuthError(.bindingMismatch, "The form is stale or was not sent from this page.") }
        guard
            try await context.delete(OAuthKeys.pendingRequest(record.id), condition: .versionEquals(record.version))
                != nil
        else { throw OAuthError(.alreadyUsed, "This request was already answered.") }
        return record
    }

    /// Whether the browser holds any binding cookie at all (the callback page is shown only then).
    func hasBindingCookie(_ request: Request) -> Bool {
        request.cookies.contains { $0.name.hasPrefix(cookiePrefix) }
    }

    /// Apple's callback, as the callback page POSTs it: finds the consented request this browser's
    /// cookies point to, checks the consent window and that `tab` is the nonce of the tab that
    /// pressed the button, and consumes it with one conditional delete (a racing second callback
    /// loses). Nothing is consumed when the tab is not the one (the person can still finish there).
    /// Returns the consumed request and the name of its cookie (to clear).
    func consumeForCallback(_ request: Request, tab: String?) async throws(OAuthError) -> Consumed {
        let all = request.cookies.filter { $0.name.hasPrefix(cookiePrefix) }
        guard !all.isEmpty else {
            throw OAuthError(.bindingMissing, "This browser did not start the sign-in that Apple returned to.")
        }
        // A name sent twice means a planted copy: neither value is believed.
        let names = all.map(\.name)
        let candidates = all.filter { cookie in names.filter { $0 == cookie.name }.count == 1 }.prefix(8)
        var problem: OAuthError.Code = candidates.count < all.count ? .bindingMismatch : .alreadyUsed
        var chosen: Consumed?
        for cookie in candidates {
            let id = String(cookie.name.dropFirst(cookiePrefix.count))
            guard let record = try await load(id) else { continue }
            guard matches(cookie.value, record.bindingHash) else {
                problem = .bindingMismatch
                continue
            }
            guard record.status == .consented, let consentedAt = record.consentedAt else { continue }
            guard context.now - consentedAt <= context.configuration.lifetimes.consentWindow.wholeSeconds else {
                problem = .consentExpired
                continue
            }
            guard let tab, !tab.isEmpty, let tabHash = record.tabHash, matches(tab, tabHash) else {
                if problem != .bindingMismatch { problem = .wrongTab }
                continue
            }
            if let current = chosen, (current.record.consentedAt ?? 0) >= consentedAt { continue }
            chosen = Consumed(record: record, cookieName: cookie.name)
        }
        guard let chosen else { throw Self.callbackError(problem) }
        let key = OAuthKeys.pendingRequest(chosen.record.id)
        guard try await context.delete(key, condition: .versionEquals(chosen.record.version)) != nil else {
            throw Self.callbackError(.alreadyUsed)
        }
        return chosen
    }

    /// A pending request the callback consumed, and the binding cookie to clear.
    struct Consumed: Sendable {
        var record: PendingRequest
        var cookieName: String
    }

    private static func callbackError(_ code: OAuthError.Code) -> OAuthError {
        switch code {
        case .bindingMismatch: OAuthError(code, "The sign-in cookie does not belong to this request.")
        case .consentExpired: OAuthError(code, "More than a few minutes passed since you pressed Continue.")
        case .wrongTab: OAuthError(code, "This tab did not start the sign-in that Apple returned to.")
        default: OAuthError(.alreadyUsed, "This sign-in was already completed or has expired.")
        }
    }

    /// The live pending request, or nil.
    func load(_ id: String) async throws(OAuthError) -> PendingRequest? {
        guard id.utf8.count <= 64 else { return nil }
        return try await context.get(OAuthKeys.pendingRequest(id)).flatMap(PendingRequest.init(item:))
    }

    /// The pending request, provided this browser holds its cookie.
    private func bound(requestID: String, in request: Request) async throws(OAuthError) -> PendingRequest {
        guard let record = try await load(requestID) else {
            throw OAuthError(.consentExpired, "This request has expired; start again from your AI app.")
        }
        guard let value = request.cookie(cookieName(requestID)) else {
            throw OAuthError(.bindingMissing, "This browser did not open this request.")
        }
        guard matches(value, record.bindingHash) else {
            throw OAuthError(.bindingMismatch, "The request cookie does not match.")
        }
        return record
    }

    /// Whether `value` hashes to `hash` under the current or the previous pepper (constant time).
    private func matches(_ value: String, _ hash: String) -> Bool {
        context.hasher.candidates(value).contains { ConstantTime.equals($0, hash) }
    }
}
