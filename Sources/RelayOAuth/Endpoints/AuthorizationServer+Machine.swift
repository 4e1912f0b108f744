import RelayHTTP
import RelayJSON

extension AuthorizationServer {
    /// `POST /register` (RFC 7591).
    func registerClient(_ request: Request) async throws(OAuthError) -> Response {
        let address = request.origin.client?.unredacted ?? "unknown"
        if let wait = registrationLimiter.admit(address, now: context.now) {
            context.events(.registrationRateLimited)
            throw OAuthError(
                .tooManyRequests, "Too many registrations; try again later.", headers: ["Retry-After": String(wait)])
        }
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
        let (client, secret) = try await clients.register(validated)
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
}
