import Foundation
import RelayHTTP
import RelayJSON
import RelayTestSupport
import Testing

@testable import RelayDemo
@testable import RelayService

/// Browser clients (the MCP Inspector's direct mode) call `/mcp` from their page's origin. The
/// demo allows the Inspector's two origins; a production configuration keeps the operator's list,
/// empty by default, and refuses them with 403 while server-side clients (no Origin) go on.
extension EndToEndSuite {
    @Suite(.timeLimit(.minutes(10))) struct BrowserOriginTests {
        static let toolsList: JSONValue = ["jsonrpc": "2.0", "id": 1, "method": "tools/list"]

        @Test func testTheDemoLetsTheInspectorCallMCPAndProductionRefusesIt() async throws {
            #expect(Configuration().allowedOrigins == [], "production allows no browser origin by default")
            let demo = try await RelayHarness()
            try await withCleanup {
                let tokens = try await OAuthDriver(http: demo.http, issuer: demo.issuer).connect(
                    appleID: "page@example.com")
                for origin in Demo.inspectorOrigins {
                    let preflight = try await demo.http.send(Self.preflight(demo.mcpURL, origin: origin))
                    #expect(preflight.status == 204, "\(origin)")
                    #expect(preflight.headers["access-control-allow-origin"] != nil, "\(origin)")
                    for header in ["authorization", "content-type", "mcp-protocol-version"] {
                        #expect(
                            preflight.headers["access-control-allow-headers"]?.lowercased().contains(header) == true,
                            "\(header)")
                    }
                    let anonymous = try await demo.http.send(Self.post(demo.mcpURL, origin: origin, token: nil))
                    #expect(anonymous.status == 401, "\(origin)")
                    #expect(
                        anonymous.headers["access-control-expose-headers"]?.contains("WWW-Authenticate") == true,
                        "the page can read the challenge")
                    let listed = try await demo.http.send(Self.post(demo.mcpURL, origin: origin, token: tokens.access))
                    #expect(listed.status == 200, "\(origin): \(listed.text)")
                    #expect(listed.headers["access-control-allow-origin"] != nil, "\(origin)")
                    #expect(try JSONValue(parsing: listed.body)["result"]?["tools"] != nil, "\(origin)")
                }
                let stranger = try await demo.http.send(
                    Self.post(demo.mcpURL, origin: "http://localhost:6275", token: tokens.access))
                #expect(stranger.status == 403, "only the Inspector's origins, not any local page")
            } cleanup: {
                await demo.stop()
                demo.removeFiles()
            }

            let production = try await RelayHarness(configure: { $0.allowedOrigins = Configuration().allowedOrigins })
            try await withCleanup {
                let tokens = try await OAuthDriver(http: production.http, issuer: production.issuer).connect(
                    appleID: "server@example.com")
                for origin in Demo.inspectorOrigins {
                    let preflight = try await production.http.send(Self.preflight(production.mcpURL, origin: origin))
                    #expect(preflight.status == 403, "\(origin)")
                    let post = try await production.http.send(
                        Self.post(production.mcpURL, origin: origin, token: tokens.access))
                    #expect(post.status == 403, "\(origin)")
                }
                let serverSide = try await production.http.send(
                    Self.post(production.mcpURL, origin: nil, token: tokens.access))
                #expect(serverSide.status == 200, "clients without Origin are unaffected")
            } cleanup: {
                await production.stop()
                production.removeFiles()
            }
        }

        static func preflight(_ url: String, origin: String) -> ClientRequest {
            ClientRequest(
                method: .options, url: url,
                headers: [
                    "Origin": origin, "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "authorization,content-type,mcp-protocol-version",
                ])
        }

        static func post(_ url: String, origin: String?, token: String?) -> ClientRequest {
            var headers: HTTPHeaders = [
                "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-11-25",
            ]
            if let origin { headers.add("Origin", origin) }
            if let token { headers.add("Authorization", "Bearer " + token) }
            return ClientRequest(method: .post, url: url, headers: headers, body: toolsList.bytes)
        }
    }
}
