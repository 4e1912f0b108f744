import RelayHTTP
import RelayJSON
import Testing

@testable import RelayMCP

/// Host (DNS rebinding) and Origin checks, before authentication.
@Suite struct SecurityTests {
    @Test func unknownHostIs421EvenWithoutAToken() async throws {
        try await withServer(TestServer()) { server in
            let body = TestServer.request("tools/list").jsonString
            for host in ["evil.example", "evil.example:\(server.port)", "127.0.0.2", "localhost.evil.example"] {
                let withToken = try await server.send(
                    body: body,
                    headers: [
                        ("Host", host), ("Authorization", "Bearer test-token"), ("Content-Type", "application/json"),
                    ])
                #expect(withToken.status == 421, "\(host)")
                let withoutToken = try await server.send("GET", headers: [("Host", host)])
                #expect(withoutToken.status == 421, "\(host)")
                #expect(withoutToken.header("WWW-Authenticate") == nil)
            }
            for host in ["127.0.0.1:\(server.port)", "LOCALHOST", "localhost:1"] {
                let response = try await server.send(
                    body: body,
                    headers: [
                        ("Host", host), ("Authorization", "Bearer test-token"), ("Content-Type", "application/json"),
                    ])
                #expect(response.status == 200, "\(host)")
            }
        }
    }

    @Test func screenMatchesPortsOnlyWhenConfiguredWithOne() {
        let configuration = MCPEndpointConfiguration(
            serverInfo: MCPServerInfo(name: "t", version: "1"),
            allowedHosts: ["relay.example", "127.0.0.1:8080", "[::1]:8080"]
        )
        let screen = RequestScreen(configuration)
        func status(_ host: String?) -> Int? {
            var headers = HTTPHeaders()
            if let host { headers.add("host", host) }
            let request = Request(method: .post, target: "/mcp", headers: headers, origin: RequestOrigin(host: host))
            return screen.refusal(for: request)?.status.code
        }
        #expect(status("relay.example") == nil)
        #expect(status("relay.example:443") == nil)
        #expect(status("127.0.0.1:8080") == nil)
        #expect(status("127.0.0.1:9090") == 421)
        #expect(status("127.0.0.1") == 421)
        #expect(status("[::1]:8080") == nil)
        #expect(status("[::1]:1") == 421)
        #expect(status(nil) == 421)
        let open = RequestScreen(MCPEndpointConfiguration(serverInfo: MCPServerInfo(name: "t", version: "1")))
        #expect(open.refusal(for: Request(method: .post, target: "/mcp", headers: ["host": "anything"])) == nil)
    }

    @Test func originAbsentIsAllowedAndAnUnknownOriginIs403() async throws {
        try await withServer(TestServer()) { server in
            let ping = TestServer.request("ping")
            let absent = try await server.post(ping)
            #expect(absent.status == 200)
            for origin in ["https://relay.example", "HTTPS://RELAY.EXAMPLE", "http://localhost:6274"] {
                let allowed = try await server.post(ping, extra: [("Origin", origin)])
                #expect(allowed.status == 200, "\(origin)")
            }
            for origin in ["https://evil.example", "null", "https://relay.example.evil", "http://localhost:6275"] {
                let refused = try await server.post(ping, extra: [("Origin", origin)])
                #expect(refused.status == 403, "\(origin)")
                #expect(refused.json?["error"]?["code"] == -32000)
                #expect(refused.json?["id"] == .null)
                #expect(refused.header("WWW-Authenticate") == nil)
            }
        }
    }
}
