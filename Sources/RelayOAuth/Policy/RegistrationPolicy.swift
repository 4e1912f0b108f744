import RelayJSON

/// A dynamic client registration request (RFC 7591) that passed every check.
struct RegistrationRequest: Sendable, Equatable {
    var redirectURIs: [String]
    var authMethod: RegisteredClient.AuthMethod
    var grantTypes: [String]
    var name: String?
    var scope: ScopeSet?
}

/// The checks on `POST /register` bodies. Unknown members are accepted and ignored (RFC 7591
/// §2: the server MUST ignore metadata it does not understand). Known members must have their
/// type, but values this server does not offer are replaced by what it does (RFC 7591 §3.2.1:
/// the server may replace requested values and says so in its response): VS Code asks for the
/// device-code grant, claude.ai's document for jwt-bearer, clients for scopes of other servers.
/// The one thing that cannot be replaced is the grant this server exists for:
/// `authorization_code` (and `code` among the response types) must be asked for.
enum RegistrationPolicy {
    /// The longest `client_name` kept.
    static let maximumNameLength = 200

    static func validate(
        _ body: JSONValue, redirects: RedirectURIPolicy, supportedScopes: [String]
    ) -> Result<RegistrationRequest, OAuthError> {
        guard let object = body.objectValue else { return .failure(metadata("The body must be a JSON object.")) }
        guard let uriValues = object["redirect_uris"]?.arrayValue else {
            return .failure(OAuthError(.invalidRedirectURI, "redirect_uris must be an array of URIs."))
        }
        let uris = uriValues.compactMap(\.stringValue)
        guard uris.count == uriValues.count else {
            return .failure(OAuthError(.invalidRedirectURI, "redirect_uris must contain only strings."))
        }
        let kept: [String]
        switch redirects.filter(uris) {
        case .success(let list): kept = list
        case .failure(let error): return .failure(error)
        }
        var method = RegisteredClient.AuthMethod.clientSecretBasic
        if let value = object["token_endpoint_auth_method"] {
            guard let text = value.stringValue, let parsed = RegisteredClient.AuthMethod(rawValue: text) else {
                return .failure(
                    metadata("token_endpoint_auth_method must be none, client_secret_post or client_secret_basic."))
            }
            method = parsed
        }
        var grantTypes = ["authorization_code", "refresh_token"]
        if let value = object["grant_types"] {
            guard let list = strings(value), list.contains("authorization_code") else {
                return .failure(metadata("grant_types must include authorization_code."))
            }
            grantTypes = grantTypes.filter(list.contains)
        }
        if let value = object["response_types"] {
            guard let list = strings(value), list.contains("code") else {
                return .failure(metadata("response_types must include code."))
            }
        }
        var name: String?
        if let value = object["client_name"], !value.isNull {
            // Refused rather than cleaned: the client's developer sees the problem at once, and no
            // stored name can reorder or hide text on the consent page (`DisplayText`).
            guard let text = value.stringValue, text.utf8.count <= maximumNameLength * 4,
                text.count <= maximumNameLength, DisplayText.isShowable(text)
            else {
                return .failure(
                    metadata(
                        "client_name must be a short single line of visible text, without control, "
                            + "formatting, bidirectional or invisible characters."))
            }
            name = text.isEmpty ? nil : text
        }
        var scope: ScopeSet?
        if let value = object["scope"], !value.isNull {
            guard let text = value.stringValue, let tokens = ScopeSet.parse(text) else {
                return .failure(metadata("scope must be a space-separated list of scope tokens."))
            }
            // Scopes this server does not have are left out; none left means all of ours.
            let known = ScopeSet(tokens: supportedScopes.filter(tokens.contains))
            scope = known.tokens.isEmpty ? nil : known
        }
        return .success(
            RegistrationRequest(
                redirectURIs: kept, authMethod: method, grantTypes: grantTypes, name: name, scope: scope))
    }

    private static func strings(_ value: JSONValue) -> [String]? {
        guard let array = value.arrayValue else { return nil }
        let list = array.compactMap(\.stringValue)
        return list.count == array.count ? list : nil
    }

    private static func metadata(_ detail: String) -> OAuthError { OAuthError(.invalidClientMetadata, detail) }
}
