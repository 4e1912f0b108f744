import RelayJSON
import Testing

@testable import RelayOAuth

/// Discovery documents: required members, S256 only, issuer strings byte-identical.
struct DiscoveryDocumentTests {
    let configuration = OAuthConfiguration(issuer: "https://relay.example")

    @Test func documentsAreConsistent() throws {
        let documents = DiscoveryDocuments(
            configuration, paths: EndpointPaths(callback: "/oauth/apple/callback"), metadataDocuments: true)
        let resource = try JSONValue(parsing: documents.protectedResource)
        let server = try JSONValue(parsing: documents.authorizationServer)
        #expect(resource["resource"] == "https://relay.example/mcp")
        #expect(resource["authorization_servers"] == ["https://relay.example"])
        #expect(resource["bearer_methods_supported"] == ["header"])
        #expect(resource["scopes_supported"] == ["todos:read", "todos:write"])
        #expect(resource["scopes_supported"]?.arrayValue?.contains("offline_access") == false)
        #expect(server["issuer"]?.stringValue == resource["authorization_servers"]?.arrayValue?.first?.stringValue)
        #expect(server["code_challenge_methods_supported"] == ["S256"])
        #expect(server["authorization_response_iss_parameter_supported"] == true)
        #expect(server["client_id_metadata_document_supported"] == true)
        #expect(
            server["token_endpoint_auth_methods_supported"] == ["none", "client_secret_post", "client_secret_basic"])
        #expect(server["grant_types_supported"] == ["authorization_code", "refresh_token"])
        #expect(server["response_types_supported"] == ["code"])
        for key in ["authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"] {
            #expect(server[key]?.stringValue?.hasPrefix("https://relay.example/") == true, "\(key)")
        }
        // The issuer appears byte for byte inside both documents.
        let issuerBytes = Array("\"https://relay.example\"".utf8)
        #expect(documents.protectedResource.firstRange(of: issuerBytes) != nil)
        #expect(documents.authorizationServer.firstRange(of: issuerBytes) != nil)
    }

    @Test func configurationProblems() {
        #expect(OAuthConfiguration(issuer: "https://relay.example").problems().isEmpty)
        #expect(OAuthConfiguration(issuer: "http://127.0.0.1:8080").problems().isEmpty)
        #expect(OAuthConfiguration(issuer: "http://127.0.0.1:8080").isLoopbackDemo)
        #expect(!OAuthConfiguration(issuer: "https://relay.example").isLoopbackDemo)
        // Each bad issuer is an `.issuer` problem (the settings reader names RELAY_ISSUER from the case alone).
        let issuers: [(String, OAuthConfiguration.Problem.Issuer)] = [
            ("http://relay.example", .notHTTPS), ("https://relay.example/", .hasPathOrQuery),
            ("https://relay.example/base", .hasPathOrQuery), ("https://relay.example?x", .hasPathOrQuery),
            ("https://relay.example#f", .notAbsolute), ("relay.example", .notAbsolute),
            ("https://Relay.example", .notLowerCase),
        ]
        for (bad, expected) in issuers {
            #expect(OAuthConfiguration(issuer: bad).problems() == [.issuer(expected)], "\(bad)")
        }
        var configuration = OAuthConfiguration(issuer: "https://relay.example")
        configuration.lifetimes.consentWindow = .seconds(700)
        #expect(configuration.problems() == [.consentWindowOutlivesPendingRequest])
        configuration = OAuthConfiguration(issuer: "https://relay.example")
        configuration.scopes = []
        configuration.maximumUnusedClients = 0
        #expect(configuration.problems() == [.scopes, .noUnusedClients])
        #expect(OAuthConfiguration.Problem.scopes.description == "scopes must be a non-empty list of scope tokens")
    }
}
