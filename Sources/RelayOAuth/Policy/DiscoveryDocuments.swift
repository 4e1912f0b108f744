import RelayJSON

/// The discovery documents, built once per configuration. Every URL starts with the configured
/// issuer string itself, so `authorization_servers[0]` and `issuer` are byte-identical (clients
/// compare them with plain string equality).
struct DiscoveryDocuments: Sendable {
    /// RFC 9728 protected-resource metadata (served at the root and path-suffixed well-known URLs).
    let protectedResource: [UInt8]
    /// The same for the MCP endpoint typed with a trailing slash (`…/mcp/`): `resource` is that
    /// URL, identical to what the client used (RFC 9728 §3.3), served at `…/oauth-protected-resource/mcp/`.
    let protectedResourceWithSlash: [UInt8]
    /// RFC 8414 authorization-server metadata.
    let authorizationServer: [UInt8]

    init(_ configuration: OAuthConfiguration, paths: EndpointPaths, metadataDocuments: Bool) {
        let issuer = configuration.issuer
        let scopes = JSONValue.array(configuration.scopes.map(JSONValue.string))
        func resourceDocument(_ resource: String) -> [UInt8] {
            let document: JSONObject = [
                "resource": .string(resource),
                "authorization_servers": [.string(issuer)],
                "scopes_supported": scopes,
                "bearer_methods_supported": ["header"],
                "resource_name": .string(configuration.resourceName),
            ]
            return JSONValue.object(document).bytes
        }
        protectedResource = resourceDocument(configuration.resource)
        protectedResourceWithSlash = resourceDocument(configuration.resource + "/")
        let methods: JSONValue = ["none", "client_secret_post", "client_secret_basic"]
        let server: JSONObject = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + paths.authorize),
            "token_endpoint": .string(issuer + paths.token),
            "registration_endpoint": .string(issuer + paths.register),
            "revocation_endpoint": .string(issuer + paths.revoke),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": methods,
            "revocation_endpoint_auth_methods_supported": methods,
            "scopes_supported": scopes,
            "client_id_metadata_document_supported": .bool(metadataDocuments),
            "authorization_response_iss_parameter_supported": true,
        ]
        authorizationServer = JSONValue.object(server).bytes
    }
}

/// Where each endpoint lives, relative to the issuer.
struct EndpointPaths: Sendable {
    var protectedResource = "/.well-known/oauth-protected-resource"
    var authorizationServer = "/.well-known/oauth-authorization-server"
    var openIDConfiguration = "/.well-known/openid-configuration"
    var register = "/register"
    var authorize = "/authorize"
    var consent = "/authorize/consent"
    var token = "/token"
    var revoke = "/revoke"
    var disconnect = "/disconnect"
    /// The person's connections: `GET` shows them (after Apple confirms), `POST` confirms with Apple.
    var connections = "/connections"
    /// The forms of the connections page: end one, end all, sign out, sign in to iCloud again.
    var connectionsEnd = "/connections/end"
    var callback: String

    init(callback: String) { self.callback = callback }
}
