import RelayJSON
import Testing

@testable import RelayOAuth

/// Discovery over HTTP: JSON (never HTML, never a redirect), the same document at both PRM URLs,
/// issuer strings byte-identical, openid-configuration 404 JSON, CORS and preflights.
struct MetadataEndpointTests {
    @Test func protectedResourceMetadataIsIdenticalAtBothURLs() async throws {
        try await withHarness { h in
            let root = try await h.client.get("/.well-known/oauth-protected-resource")
            let suffixed = try await h.client.get("/.well-known/oauth-protected-resource/mcp")
            #expect(root.status == 200)
            #expect(suffixed.status == 200)
            #expect(root.body == suffixed.body)
            #expect(root.header("content-type") == "application/json")
            let server = try await h.client.get("/.well-known/oauth-authorization-server")
            let resource = try JSONValue(parsing: root.body)
            let metadata = try JSONValue(parsing: server.body)
            // Byte-identical issuer: the exact bytes of authorization_servers[0] are the issuer's.
            let issuer = try #require(metadata["issuer"]?.stringValue)
            #expect(resource["authorization_servers"]?.arrayValue?.first?.stringValue == issuer)
            #expect(issuer == "https://relay.example")
            #expect(root.text.contains("\"authorization_servers\":[\"https://relay.example\"]"))
            #expect(server.text.contains("\"issuer\":\"https://relay.example\""))
        }
    }

    @Test func metadataIsJSONWithCORSAndNoRedirects() async throws {
        try await withHarness { h in
            for path in [
                "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-authorization-server",
            ] {
                // A 2026-era client sends its protocol version header on metadata requests too.
                let response = try await h.client.get(path, headers: [("MCP-Protocol-Version", "2026-07-28")])
                #expect(response.status == 200, "\(path)")
                #expect(response.header("content-type") == "application/json")
                #expect(response.header("access-control-allow-origin") == "*")
                #expect(response.header("access-control-expose-headers")?.contains("WWW-Authenticate") == true)
                #expect(!response.text.contains("<"))
                let preflight = try await h.client.send(
                    "OPTIONS", path,
                    headers: [("Origin", "http://localhost:6274"), ("Access-Control-Request-Method", "GET")])
                #expect(preflight.status == 204)
                #expect(preflight.header("access-control-allow-origin") == "*")
                #expect(preflight.header("access-control-allow-headers")?.contains("MCP-Protocol-Version") == true)
            }
        }
    }

    @Test func openIDConfigurationIs404JSON() async throws {
        try await withHarness { h in
            let response = try await h.client.get("/.well-known/openid-configuration")
            #expect(response.status == 404)
            #expect(response.header("content-type") == "application/json")
            #expect(throws: Never.self) { try JSONValue(parsing: response.body) }
        }
    }

    @Test func machineEndpointsAnswerPreflightsAndCORSButPagesDoNot() async throws {
        try await withHarness { h in
            for path in ["/register", "/token", "/revoke"] {
                let preflight = try await h.client.send(
                    "OPTIONS", path,
                    headers: [("Origin", "http://localhost:6274"), ("Access-Control-Request-Method", "POST")])
                #expect(preflight.status == 204, "\(path)")
                #expect(preflight.header("access-control-allow-methods")?.contains("POST") == true)
                let post = try await h.client.postForm(path, [])
                #expect(post.header("access-control-allow-origin") == "*", "\(path)")
                #expect(post.header("content-type") == "application/json")
                #expect(post.header("cache-control") == "no-store")
            }
            let page = try await h.client.get("/authorize")
            #expect(page.header("access-control-allow-origin") == nil)
            let disconnect = try await h.client.get("/disconnect")
            #expect(disconnect.header("access-control-allow-origin") == nil)
        }
    }

    @Test func metadataWithoutAFetcherSaysNoMetadataDocuments() throws {
        let configuration = OAuthConfiguration(issuer: "https://relay.example")
        let documents = DiscoveryDocuments(
            configuration, paths: EndpointPaths(callback: "/cb"), metadataDocuments: false)
        #expect(try JSONValue(parsing: documents.authorizationServer)["client_id_metadata_document_supported"] == false)
    }
}
