import Foundation
import RelayHTTP
import RelayTestSupport
import Testing

@testable import RelayService

extension EndToEndSuite {
    /// Issue 41: the server's own origin is always allowed on `/mcp` (the official MCP conformance
    /// suite's DNS-rebinding scenario sends Host and Origin both equal to the server's); `Origin:
    /// null` and Electron renderer origins such as `vscode-file://vscode-app` are refused by default.
    @Suite(.timeLimit(.minutes(10))) struct OwnOriginTests {
        @Test func testTheServersOwnOriginIsAllowedAndNullAndElectronAreNot() async throws {
            let relay = try await RelayHarness(configure: { $0.allowedOrigins = Configuration().allowedOrigins })
            try await withCleanup {
                let tokens = try await OAuthDriver(http: relay.http, issuer: relay.issuer).connect(
                    appleID: "origin@example.com")
                let own = try await relay.http.send(
                    BrowserOriginTests.post(relay.mcpURL, origin: relay.issuer, token: tokens.access))
                #expect(own.status == 200, "Host and Origin both the server's")
                // The conformance suite's probe carries no token: the Origin passes, authentication answers.
                let probe = try await relay.http.send(
                    BrowserOriginTests.post(relay.mcpURL, origin: relay.issuer, token: nil))
                #expect(probe.status == 401, "the own origin reaches authentication, not a 403")
                let ownPreflight = try await relay.http.send(
                    BrowserOriginTests.preflight(relay.mcpURL, origin: relay.issuer))
                #expect(ownPreflight.status < 300)
                for origin in ["null", "vscode-file://vscode-app", "http://evil.example", "app://obsidian.md"] {
                    let refused = try await relay.http.send(
                        BrowserOriginTests.post(relay.mcpURL, origin: origin, token: tokens.access))
                    #expect(refused.status == 403, "\(origin)")
                }
            } cleanup: {
                await relay.stop()
                relay.removeFiles()
            }
            // Listing `null` does not allow it: every sandboxed frame sends it.
            let listed = try await RelayHarness(configure: { $0.allowedOrigins = ["null", "vscode-file://vscode-app"] })
            try await withCleanup {
                let tokens = try await OAuthDriver(http: listed.http, issuer: listed.issuer).connect(
                    appleID: "origin2@example.com")
                let null = try await listed.http.send(
                    BrowserOriginTests.post(listed.mcpURL, origin: "null", token: tokens.access))
                #expect(null.status == 403)
                let electron = try await listed.http.send(
                    BrowserOriginTests.post(listed.mcpURL, origin: "vscode-file://vscode-app", token: tokens.access))
                #expect(electron.status == 200, "an operator may allow an Electron app by name")
            } cleanup: {
                await listed.stop()
                listed.removeFiles()
            }
        }
    }
}
