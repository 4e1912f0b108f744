import RelayHTTP
import RelayJSON

extension AuthorizationServer {
    /// `POST /register` (RFC 7591). Registrations of metadata already stored are answered from
    /// that record and always succeed; new metadata counts against the address's budget and the
    /// cap on unused clients (`ClientRegistry.register`).
    func registerClient(_ request: Request) async throws(OAuthError) -> Response {
        if let wait = registrationShedWait(request) { throw clients.tooManyNewClients(wait) }
        guard request.body.count <= configuration.maximumRegistrationBytes else {
            throw OAuthError(.invalidClientMetadata, "The registration is too large.", status: .contentTooLarge)
        }
        guard request.hasContentType("application/json") else {
            throw OAuthError(.invalidClientMetadata, "The body must be application/json.")
        }
        guard let body = try? JSONValue(parsing: request.body) else {
            throw OAuthError(.invalidClientMetadata, "The body is not valid JSON.")
        }
        let validated = try RegistrationPolicy.validate(
            body, redirects: clients.redirectPolicy, supportedScopes: configuration.scopes
        ).get()
        let registration = try await clients.register(
            validated, address: Self.address(request), block: request.origin.client?.block)
        let (client, secret) = (registration.client, registration.secret)
        var answer: JSONObject = ["client_id": .string(client.id), "client_id_issued_at": .int(client.issuedAt)]
        if let secret {
            answer["client_secret"] = .string(secret)
            answer["client_secret_expires_at"] = 0
        }
        if let name = client.name { answer["client_name"] = .string(name) }
        answer["redirect_uris"] = .strings(client.redirectURIs)
        answer["grant_types"] = .strings(client.grantTypes)
        answer["response_types"] = ["code"]
        answer["token_endpoint_auth_method"] = .string(client.authMethod.rawValue)
        answer["scope"] = .string((client.scope?.tokens ?? configuration.scopes).joined(separator: " "))
        var response = Response.json(.object(answer), status: .created)
        NoStore.apply(to: &response)
        return response
    }

    /// `POST /token`: client authentication, then the authorization-code or refresh-token grant.
    func token(_ request: Request) async throws(OAuthError) -> Response {
        try await countingFailures(request) { () throws(OAuthError) in try await self.exchange(request) }
    }

    private func exchange(_ request: Request) async throws(OAuthError) -> Response {
        let form = try Self.form(request)
        let credentials = try PresentedCredentials.parse(headers: request.headers, form: form).get()
        let client = try await clients.authenticate(credentials)
        switch try TokenRequest.parse(form).get() {
        case .authorizationCode(let code, let redirectURI, let verifier, let resource):
            let tokens = try await codes.exchange(
                code: code, redirectURI: redirectURI, verifier: verifier, resource: resource, client: client)
            await clients.markUsed(client)
            return tokens.response()
        case .refreshToken(let token, let scope, let resource):
            return try await refreshes.refresh(token: token, scope: scope, resource: resource, client: client)
                .response()
        }
    }

    /// `POST /revoke` (RFC 7009): always 200 once the client is authenticated.
    func revoke(_ request: Request) async throws(OAuthError) -> Response {
        try await countingFailures(request) { () throws(OAuthError) in try await self.revocation(request) }
    }

    private func revocation(_ request: Request) async throws(OAuthError) -> Response {
        let form = try Self.form(request)
        let credentials = try PresentedCredentials.parse(headers: request.headers, form: form).get()
        let client = try await clients.authenticate(credentials)
        guard form.values("token").count == 1, let token = form["token"] else {
            throw OAuthError(.invalidRequest, "token is required.")
        }
        try await revocation.revoke(token: token, client: client)
        var response = Response(status: .ok)
        NoStore.apply(to: &response)
        return response
    }

    /// Runs a `/token` or `/revoke` request under the address's failure budget, counted on every
    /// instance together: a request that fails for the client's own reasons (any 4xx but 429)
    /// counts one failure, and the failures past the budget are answered 429 instead of their own
    /// error, so at most the budget's failures per window are answered, whichever instances they
    /// reach. An address this instance already knows to be over is refused at once (no store
    /// operation). Successes never count: a platform refreshing for many people from a few
    /// addresses is not slowed by its own traffic.
    private func countingFailures(
        _ request: Request, _ body: () async throws(OAuthError) -> Response
    ) async throws(OAuthError) -> Response {
        let address = Self.address(request)
        if let wait = tokenFailures.knownWait(address) { throw tooManyFailures(wait) }
        do {
            return try await body()
        } catch {
            let status = error.status.code
            // A store failure here only loses one count; the client still hears its own error.
            if (400..<500).contains(status) && status != 429,
                let wait = (try? await tokenFailures.count(address)) ?? nil
            {
                throw tooManyFailures(wait)
            }
            throw error
        }
    }

    private func tooManyFailures(_ wait: Int) -> OAuthError {
        context.events(.limitReached(limit: .tokenFailuresPerAddress))
        return OAuthError(
            .tooManyRequests, "Too many failed requests from this address; try again later.",
            headers: ["Retry-After": String(wait)])
    }

    /// The client address a limit counts (an IPv6 address as its /64).
    static func address(_ request: Request) -> String {
        RateLimiter.key(request.origin.client?.unredacted ?? "unknown")
    }
}
