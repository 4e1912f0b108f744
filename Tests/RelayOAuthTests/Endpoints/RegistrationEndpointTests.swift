import RelayJSON
import Testing

@testable import RelayOAuth

/// `POST /register` over HTTP (RFC 7591).
struct RegistrationEndpointTests {
    @Test func publicClientGetsNoSecret() async throws {
        try await withHarness { h in
            let response = try await h.client.postJSON(
                "/register",
                #"{"redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"token_endpoint_auth_method":"none","client_name":"Claude","unknown_field":{"x":1}}"#
            )
            #expect(response.status == 201)
            #expect(response.header("cache-control") == "no-store")
            let json = try JSONValue(parsing: response.body)
            #expect(json["client_secret"] == nil)
            #expect(json["token_endpoint_auth_method"] == "none")
            #expect(json["redirect_uris"] == ["https://claude.ai/api/mcp/auth_callback"])
            #expect(json["grant_types"] == ["authorization_code", "refresh_token"])
            #expect(json["response_types"] == ["code"])
            #expect(json["client_name"] == "Claude")
            #expect(json["client_id_issued_at"]?.intValue == Int(h.clock.now()))
            #expect(json["unknown_field"] == nil)
        }
    }

    @Test(arguments: ["client_secret_post", "client_secret_basic"])
    func secretClientsGetASecretThatIsNeverStored(method: String) async throws {
        try await withHarness { h in
            let (id, secret) = try await h.register(method: method)
            let value = try #require(secret)
            #expect(value.hasPrefix("mdr_cs_"))
            // `<record>.<nonce>`: the secret is derived from the ID, nothing of it is stored.
            let record = String(id.prefix { $0 != "." })
            #expect(record != id)
            let item = try #require(try await h.store.get(OAuthKeys.client(record)))
            #expect(!JSONValue.object(item.attributes).jsonString.contains(value))
            #expect(item.attributes["secret"] == nil)
            #expect(item.attributes["derived"] == true)
        }
    }

    @Test func defaultMethodIsClientSecretBasic() async throws {
        try await withHarness { h in
            let response = try await h.client.postJSON("/register", #"{"redirect_uris":["http://localhost:3000/cb"]}"#)
            let json = try JSONValue(parsing: response.body)
            #expect(json["token_endpoint_auth_method"] == "client_secret_basic")
            #expect(json["client_secret"]?.stringValue?.hasPrefix("mdr_cs_") == true)
            #expect(json["client_secret_expires_at"] == 0)
        }
    }

    @Test func refusalsAreJSONErrors() async throws {
        try await withHarness { h in
            let cases: [(String, String)] = [
                // Issue 41: a harmless https callback off the list is now accepted as self-registered
                // (`RegistrationIdentityTests` checks that the allowlist mode still refuses it).
                (#"{"redirect_uris":["http://evil.example/cb"]}"#, "invalid_redirect_uri"),
                (#"{"redirect_uris":["javascript:alert(1)"]}"#, "invalid_redirect_uri"),
                (#"{"redirect_uris":[]}"#, "invalid_redirect_uri"),
                (
                    #"{"redirect_uris":["http://localhost/cb"],"token_endpoint_auth_method":"private_key_jwt"}"#,
                    "invalid_client_metadata"
                ),
                (#"{"redirect_uris":["http://localhost/cb"],"grant_types":["implicit"]}"#, "invalid_client_metadata"),
                ("not json", "invalid_client_metadata"),
            ]
            for (body, code) in cases {
                let response = try await h.client.postJSON("/register", body)
                #expect(response.status == 400, "\(body)")
                #expect(try JSONValue(parsing: response.body)["error"]?.stringValue == code, "\(body)")
                #expect(response.header("cache-control") == "no-store")
            }
            let form = try await h.client.postForm("/register", [("redirect_uris", "http://localhost/cb")])
            #expect(form.status == 400)
            let many = (0..<11).map { "\"http://localhost:\(2000 + $0)/cb\"" }.joined(separator: ",")
            let tooMany = try await h.client.postJSON("/register", "{\"redirect_uris\":[\(many)]}")
            #expect(try JSONValue(parsing: tooMany.body)["error"] == "invalid_redirect_uri")
        }
    }

    @Test func bodyOverTheLimitIs413() async throws {
        try await withHarness { h in
            let padding = String(repeating: "x", count: 20_000)
            let response = try await h.client.postJSON(
                "/register", "{\"redirect_uris\":[\"http://localhost/cb\"],\"pad\":\"\(padding)\"}")
            #expect(response.status == 413)
            #expect(response.header("cache-control") == "no-store")
        }
    }

    @Test func registrationIsRateLimitedPerAddress() async throws {
        let settings: (inout OAuthConfiguration) -> Void = {
            $0.registrationRateLimit = .init(requests: 3, window: .seconds(3600))
        }
        try await withHarness(configure: settings) { h in
            // Loopback redirects count; a known platform's would not (issue 41).
            for _ in 0..<3 { _ = try await h.register(redirectURIs: ["http://localhost/cb"]) }
            let limited = try await h.client.postJSON("/register", #"{"redirect_uris":["http://localhost/cb"]}"#)
            #expect(limited.status == 429)
            #expect(limited.header("retry-after") != nil)
            #expect(try JSONValue(parsing: limited.body)["error"] == "too_many_requests")
            h.clock.advance(by: 3600)
            _ = try await h.register()
        }
    }

    @Test func unusedClientsExpireAfter30DaysUsedOnesStay() async throws {
        try await withHarness { h in
            let unused = try await h.register()
            let used = try await h.connect().clientID
            h.clock.advance(by: 30 * 86400 + 1)
            #expect(try await h.store.get(OAuthKeys.client(unused.id)) == nil)
            #expect(try await h.store.get(OAuthKeys.client(used)) != nil)
            // An expired client is unknown at /token: 401 invalid_client, so the client re-registers.
            let response = try await h.client.postForm(
                "/token", [("grant_type", "refresh_token"), ("refresh_token", "x"), ("client_id", unused.id)])
            #expect(response.status == 401)
            #expect(try JSONValue(parsing: response.body)["error"] == "invalid_client")
        }
    }
}
