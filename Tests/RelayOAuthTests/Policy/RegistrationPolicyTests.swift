import RelayJSON
import Testing

@testable import RelayOAuth

/// RFC 7591 request checks: defaults, strict known members, ignored unknown ones.
struct RegistrationPolicyTests {
    let redirects = RedirectURIPolicy(allowlist: RedirectAllowlist()!, maximumCount: 10)
    let scopes = ["todos:read", "todos:write"]

    func validate(_ json: String) -> Result<RegistrationRequest, OAuthError> {
        RegistrationPolicy.validate(
            try! JSONValue(parsing: Array(json.utf8)), redirects: redirects, supportedScopes: scopes)
    }

    func code(_ json: String) -> OAuthError.Code? {
        if case .failure(let error) = validate(json) { return error.code }
        return nil
    }

    @Test func minimalRegistrationGetsRFC7591DefaultsPlusRefresh() throws {
        let request = try validate(#"{"redirect_uris":["https://claude.ai/api/mcp/auth_callback"]}"#).get()
        #expect(request.authMethod == .clientSecretBasic)
        #expect(request.grantTypes == ["authorization_code", "refresh_token"])
        #expect(request.name == nil)
        #expect(request.scope == nil)
    }

    @Test func claudeStyleRegistrationWithUnknownMembers() throws {
        let request = try validate(
            #"""
            {"client_name":"Claude","redirect_uris":["https://claude.ai/api/mcp/auth_callback"],
             "grant_types":["authorization_code","refresh_token"],"response_types":["code"],
             "token_endpoint_auth_method":"none","application_type":"web","software_id":"x","logo_uri":"https://x/y.png",
             "scope":"todos:read todos:write offline_access"}
            """#
        ).get()
        #expect(request.authMethod == .none)
        #expect(request.name == "Claude")
        #expect(request.scope?.tokens == ["todos:read", "todos:write"])
    }

    @Test func secretMethodsAreKept() throws {
        #expect(
            try validate(
                #"{"redirect_uris":["http://localhost/cb"],"token_endpoint_auth_method":"client_secret_post"}"#
            )
            .get().authMethod == .clientSecretPost)
        #expect(
            try validate(
                #"{"redirect_uris":["http://localhost/cb"],"token_endpoint_auth_method":"client_secret_basic"}"#
            )
            .get().authMethod == .clientSecretBasic)
    }

    @Test func onlyAuthorizationCodeMeansNoRefresh() throws {
        let request = try validate(#"{"redirect_uris":["http://localhost/cb"],"grant_types":["authorization_code"]}"#)
            .get()
        #expect(request.grantTypes == ["authorization_code"])
    }

    @Test func invalidMetadataIsRefused() {
        #expect(code("[]") == .invalidClientMetadata)
        #expect(code(#"{}"#) == .invalidRedirectURI)
        #expect(code(#"{"redirect_uris":"http://localhost/cb"}"#) == .invalidRedirectURI)
        #expect(code(#"{"redirect_uris":[1]}"#) == .invalidRedirectURI)
        #expect(code(#"{"redirect_uris":[]}"#) == .invalidRedirectURI)
        #expect(code(#"{"redirect_uris":["javascript:alert(1)"]}"#) == .invalidRedirectURI)
        #expect(code(#"{"redirect_uris":["https://evil.example/cb"]}"#) == .invalidRedirectURI)
        let base = #""redirect_uris":["http://localhost/cb""#
        #expect(code("{\(base)],\"token_endpoint_auth_method\":\"private_key_jwt\"}") == .invalidClientMetadata)
        #expect(code("{\(base)],\"token_endpoint_auth_method\":\"client_secret_jwt\"}") == .invalidClientMetadata)
        #expect(code("{\(base)],\"token_endpoint_auth_method\":7}") == .invalidClientMetadata)
        #expect(code("{\(base)],\"grant_types\":[\"implicit\"]}") == .invalidClientMetadata)
        #expect(code("{\(base)],\"grant_types\":[\"refresh_token\"]}") == .invalidClientMetadata)
        #expect(code("{\(base)],\"grant_types\":[\"client_credentials\"]}") == .invalidClientMetadata)
        #expect(code("{\(base)],\"response_types\":[\"token\"]}") == .invalidClientMetadata)
        #expect(code("{\(base)],\"grant_types\":\"authorization_code\"}") == .invalidClientMetadata)
        #expect(code("{\(base)],\"response_types\":\"code\"}") == .invalidClientMetadata)
        #expect(code("{\(base)],\"client_name\":\"a\\nb\"}") == .invalidClientMetadata)
        #expect(code("{\(base)],\"client_name\":\"\(String(repeating: "n", count: 201))\"}") == .invalidClientMetadata)
        #expect(code("{\(base)],\"client_name\":5}") == .invalidClientMetadata)
        #expect(code("{\(base)],\"scope\":7}") == .invalidClientMetadata)
        #expect(code("{\(base)],\"scope\":\"todos:read \\\"x\\\"\"}") == .invalidClientMetadata)
    }

    /// RFC 7591 §3.2.1: what this server does not offer is replaced by what it does, as long as
    /// the authorization-code grant is asked for.
    @Test func valuesWeDoNotOfferAreReplacedByWhatWeOffer() throws {
        // VS Code's registration when the server's metadata lists no grant types.
        let vsCode = try validate(
            #"""
            {"redirect_uris":["http://127.0.0.1/"],"grant_types":["authorization_code","refresh_token",
             "urn:ietf:params:oauth:grant-type:device_code"],"response_types":["code"],"scope":"todos:read admin"}
            """#
        ).get()
        #expect(vsCode.grantTypes == ["authorization_code", "refresh_token"])
        #expect(vsCode.scope?.tokens == ["todos:read"])
        let jwtBearer = try validate(
            #"{"redirect_uris":["http://localhost/cb"],"grant_types":["authorization_code","urn:ietf:params:oauth:grant-type:jwt-bearer"]}"#
        ).get()
        #expect(jwtBearer.grantTypes == ["authorization_code"])
        let hybrid = validate(#"{"redirect_uris":["http://localhost/cb"],"response_types":["code","token"]}"#)
        #expect((try? hybrid.get()) != nil)
        let foreignScopes = try validate(#"{"redirect_uris":["http://localhost/cb"],"scope":"admin openid"}"#).get()
        #expect(foreignScopes.scope == nil, "nothing of ours was asked for: every scope we have")
    }
}
