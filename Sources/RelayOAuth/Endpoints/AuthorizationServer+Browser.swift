import RelayHTTP

extension AuthorizationServer {
    /// `GET /authorize`: the checks of `AuthorizePolicy`, then a pending request, its binding
    /// cookie and the consent page.
    func authorize(_ request: Request) async -> Response {
        let locale = Self.locale(request)
        do throws(OAuthError) {
            guard let query = try? request.query() else {
                throw OAuthError(.invalidRequest, "The query string is malformed.")
            }
            let clientID = try AuthorizePolicy.clientID(query).get()
            var client = try await clients.lookup(clientID)
            var decision = AuthorizePolicy.decide(query, client: client, configuration: configuration)
            if case .showError = decision, client?.source == .metadataDocument {
                // The document may have changed since it was cached: fetch it once more.
                client = try await clients.lookup(clientID, purpose: .refetch)
                decision = AuthorizePolicy.decide(query, client: client, configuration: configuration)
            }
            switch decision {
            case .showError(let error):
                return pages.error(error, locale: locale)
            case .redirectError(let error, let redirectURI, let state):
                let location = AuthorizationResponse.error(
                    error, redirectURI: redirectURI, state: state, issuer: configuration.issuer)
                return Self.pageRedirect(location, after: .get)
            case .consent(let authorization):
                guard let client else { throw OAuthError(.invalidClient) }
                try await admitPage(request)
                let created = try await pending.create(
                    purpose: .authorize, request: authorization,
                    label: ConnectionLabel(client: client, redirectURI: authorization.redirectURI))
                var response = pages.consent(
                    authorization, client: client, requestID: created.record.id, csrf: created.csrfToken,
                    tab: created.tabNonce, locale: locale)
                response.setCookie(created.cookie)
                return response
            }
        } catch {
            return pages.error(error, locale: locale)
        }
    }

    /// The consent form: "Continue with Apple" records the consent (with the access the person
    /// chose, `ScopeChoice`) and goes to Apple's sign-in; "Cancel" sends `access_denied` back to
    /// the client.
    func consent(_ request: Request) async -> Response {
        let locale = Self.locale(request)
        do throws(OAuthError) {
            // A browser says where the form came from: only the consent page itself may send it
            // (the cookie and CSRF token already stop a forged POST; this stops it before either
            // is looked at).
            if let site = request.headers["sec-fetch-site"], site != "same-origin" {
                throw OAuthError(.bindingMismatch, "This form was not sent from the consent page.")
            }
            let form = try Self.form(request)
            guard let requestID = form["request"], form.repeatedNames.isEmpty else {
                throw OAuthError(.invalidRequest, "The form is incomplete.")
            }
            let record = try await pending.load(requestID)
            if let record, record.purpose != .authorize {
                throw OAuthError(.invalidRequest, "This form does not belong to an authorization.")
            }
            if form["action"] == "cancel" {
                let record = try await pending.cancel(requestID: requestID, csrf: form["csrf"], in: request)
                guard let authorization = record.request else { throw OAuthError(.invalidRequest) }
                context.events(.consentDenied(clientID: authorization.clientID))
                let location = AuthorizationResponse.error(
                    OAuthError(.accessDenied, "The person declined."), redirectURI: authorization.redirectURI,
                    state: authorization.state, issuer: configuration.issuer)
                var response = Self.pageRedirect(location, after: .post)
                response.setCookie(expiredCookie(pending.cookieName(requestID)))
                return response
            }
            var scope: ScopeSet?
            if let asked = record?.request?.scope { scope = try ScopeChoice.chosen(form["scope"], asked: asked).get() }
            let lifetime = try ConnectionLifetime.chosen(form[ConnectionLifetime.field]).get()
            _ = try await pending.consent(
                requestID: requestID, csrf: form["csrf"], in: request, scope: scope, lifetime: lifetime)
            return Self.pageRedirect(try await bridge.signInURL(), after: .post)
        } catch {
            return pages.error(error, locale: locale)
        }
    }

    /// `GET` Apple's callback. Nothing is stored here: a browser holding a binding cookie gets the
    /// callback page (`TabBinding`), whose script takes the token out of the address bar and POSTs
    /// it with the tab's nonce to `callbackFinish`. Any other answer is a redirect to this path with
    /// only `failed=<code>`, so no page is ever shown at a URL holding the web auth token.
    func callback(_ request: Request) async -> Response {
        let locale = Self.locale(request)
        let query = (try? request.query()) ?? FormParameters([])
        if SignInBridge.webAuthToken(in: request) == nil {
            if let failed = query["failed"] {
                let code = OAuthError.Code(rawValue: failed).flatMap { Self.callbackCodes.contains($0) ? $0 : nil }
                return pages.error(OAuthError(code ?? .signInFailed), locale: locale)
            }
            // Apple came back without a session; the attempt stays for its own tab.
            return Self.pageRedirect(failurePath(OAuthError(.signInFailed)), after: .get)
        }
        guard pending.hasBindingCookie(request) else {
            return Self.pageRedirect(failurePath(OAuthError(.bindingMissing)), after: .get)
        }
        return pages.callbackBridge(locale: locale)
    }

    /// `POST` Apple's callback, from the callback page: same origin, the binding cookie, the tab's
    /// nonce, the consent window, once; then the grant and code (or the disconnect, or the
    /// connections session). Success goes straight to the client (or the disconnect result, or the
    /// connections page with its new session cookie); failures redirect to the callback path with
    /// only `failed=<code>`.
    func callbackFinish(_ request: Request) async -> Response {
        let locale = Self.locale(request)
        let form: FormParameters
        do throws(OAuthError) {
            form = try Self.form(request)
            guard form.repeatedNames.isEmpty, TabBinding.isSameOrigin(request, origin: issuerOrigin) else {
                throw OAuthError(.wrongTab)
            }
        } catch {
            return Self.pageRedirect(failurePath(error), after: .post)
        }
        let token = CloudKitSignInCallback.webAuthToken(inQuery: form[TabBinding.queryField] ?? "")
        let outcome: SignInBridge.Outcome
        do {
            outcome = try await bridge.complete(request, token: token, tab: form[TabBinding.nonceField])
        } catch {
            return Self.pageRedirect(failurePath(error), after: .post)
        }
        var response: Response
        switch outcome.result {
        case .success(.authorized(let redirect)):
            response = Self.pageRedirect(redirect, after: .post)
        case .success(.disconnected(let count)):
            response = pages.disconnected(count: count, locale: locale)
        case .success(.connections(let cookie)):
            response = Self.pageRedirect(configuration.issuer + paths.connections, after: .post)
            response.setCookie(cookie)
        case .success(.reconnected):
            response = pages.reconnected(locale: locale)
        case .failure(let error):
            response = Self.pageRedirect(failurePath(error), after: .post)
        }
        response.setCookie(expiredCookie(outcome.cookieName))
        return response
    }

    /// The issuer's origin (scheme, host and port), as a browser's `Origin` names it.
    var issuerOrigin: String { PageLayout.source(of: configuration.issuer) ?? configuration.issuer }

    /// `GET /disconnect`: what is stored, and the form that confirms with Apple.
    func disconnectPage(_ request: Request) async -> Response {
        let locale = Self.locale(request)
        do throws(OAuthError) {
            try await admitPage(request)
            let created = try await pending.create(purpose: .disconnect, request: nil)
            var response = pages.disconnect(
                requestID: created.record.id, csrf: created.csrfToken, tab: created.tabNonce, locale: locale)
            response.setCookie(created.cookie)
            return response
        } catch {
            return pages.error(error, locale: locale)
        }
    }

    /// `POST /disconnect`: records the confirmation and goes to Apple's sign-in.
    func confirmDisconnect(_ request: Request) async -> Response {
        await confirmWithApple(request, purpose: .disconnect)
    }

    /// The confirming form of the disconnect and connections pages: records the confirmation of a
    /// pending request of `purpose` and goes to Apple's sign-in.
    func confirmWithApple(_ request: Request, purpose: PendingRequest.Purpose) async -> Response {
        let locale = Self.locale(request)
        do throws(OAuthError) {
            let form = try Self.form(request)
            guard let requestID = form["request"], form.repeatedNames.isEmpty else {
                throw OAuthError(.invalidRequest, "The form is incomplete.")
            }
            if let record = try await pending.load(requestID), record.purpose != purpose {
                throw OAuthError(.invalidRequest, "This form does not belong to this page.")
            }
            let record = try await pending.consent(requestID: requestID, csrf: form["csrf"], in: request)
            if purpose == .reconnect {
                // A sign-in link is spent here, not when its page opened (a link preview opens it too).
                guard let linkHash = record.linkHash, let grantID = record.grantID else {
                    throw Reconnections.unusable
                }
                do throws(OAuthError) {
                    try await reconnections.spend(linkHash: linkHash, grantID: grantID)
                } catch  where error.code == .alreadyUsed {
                    return pages.reconnectUnusable(locale: locale)
                }
            }
            return Self.pageRedirect(try await bridge.signInURL(), after: .post)
        } catch {
            return pages.error(error, locale: locale)
        }
    }

    /// The codes a callback failure may name in its clean URL.
    static let callbackCodes: Set<OAuthError.Code> = [
        .bindingMissing, .bindingMismatch, .consentExpired, .alreadyUsed, .signInFailed, .accountUnsupported,
        .temporarilyUnavailable, .serverError, .wrongTab, .otherAccount,
    ]

    /// Every page that stores a pending request (or a CSRF token) counts against the address's
    /// budget, on every instance together (one conditional write; none once this instance knows it
    /// is spent).
    func admitPage(_ request: Request) async throws(OAuthError) {
        if try await pageLimiter.count(Self.address(request)) != nil {
            context.events(.limitReached(limit: .pagesPerAddress))
            throw OAuthError(.tooManyRequests, "Too many sign-in attempts from this address; wait a few minutes.")
        }
    }

    private func failurePath(_ error: OAuthError) -> String {
        let code = Self.callbackCodes.contains(error.code) ? error.code : .signInFailed
        return configuration.issuer + paths.callback + "?failed=" + code.rawValue
    }
}
