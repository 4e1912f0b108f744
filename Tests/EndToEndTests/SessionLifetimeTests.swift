import Foundation
import RelayEmulator
import RelayJSON
import RelayOAuth
import Testing

@testable import RelayService

extension EndToEndSuite {
    /// Apple documents a web sign-in lasting 30 minutes, or two weeks with "Keep me signed in" (CloudKit Web
    /// Services Reference, "Composing Web Service Requests"), and does not say whether a rotated token starts a
    /// fresh lifetime. Both answers are played here, compressed to seconds on the emulator's clock (30 s and
    /// 120 s): however the session ends, the AI client gets a clean 401, the grant and its tokens are gone, and
    /// connecting again works.
    @Suite(.timeLimit(.minutes(10))) struct SessionLifetimeTests {
        /// A relay whose emulator gives sessions 30 s, or 120 s when kept signed in.
        func relay(renews: Bool) async throws -> RelayHarness {
            let relay = try await RelayHarness()
            relay.emulator.updateSettings {
                $0.tokenLifetimeSeconds = 30
                $0.keepSignedInLifetimeSeconds = 120
                $0.rotationRenewsLifetime = renews
            }
            return relay
        }

        @Test func testWhenRotationRenewsTheLifetimeAnActiveConnectionLastsAndAnIdleOneEnds() async throws {
            let relay = try await relay(renews: true)
            defer { relay.removeFiles() }
            let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let tokens = try await driver.connect(appleID: "active@example.com")
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
            // A call every 20 s keeps a 30 s session alive well past 30 s: each rotated token starts afresh.
            for round in 0..<4 {
                let (reply, _) = try await mcp.tool("get_me", token: tokens.access)
                #expect(reply.status == 200, "round \(round), \(round * 20) s after sign-in")
                relay.emulator.advanceClock(seconds: 20)
            }
            // Idle for longer than the lifetime: the session ends.
            relay.emulator.advanceClock(seconds: 15)
            try await expectCleanEnd(relay, driver, tokens, appleID: "active@example.com")
            await relay.stop()
        }

        @Test func testWhenRotationKeepsTheLifetimeEvenAnActiveConnectionEndsAfter30Minutes() async throws {
            let relay = try await relay(renews: false)
            defer { relay.removeFiles() }
            let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let tokens = try await driver.connect(appleID: "fixed@example.com")
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
            for round in 0..<2 {
                let (reply, _) = try await mcp.tool("get_me", token: tokens.access)
                #expect(reply.status == 200, "round \(round)")
                relay.emulator.advanceClock(seconds: 14)
            }
            // 28 s after sign-in it still works; 31 s after, busy or not, it is over.
            let (late, _) = try await mcp.tool("get_me", token: tokens.access)
            #expect(late.status == 200)
            relay.emulator.advanceClock(seconds: 3)
            try await expectCleanEnd(relay, driver, tokens, appleID: "fixed@example.com")
            await relay.stop()
        }

        @Test func testKeepMeSignedInLastsTheLongerLifetimeEitherWay() async throws {
            for renews in [true, false] {
                let relay = try await relay(renews: renews)
                defer { relay.removeFiles() }
                let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
                let appleID = "kept-\(renews)@example.com"
                let tokens = try await driver.connect(appleID: appleID, keepSignedIn: true)
                let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
                relay.emulator.advanceClock(seconds: 100)  // well past 30 s, idle
                let (reply, _) = try await mcp.tool("list_todos", token: tokens.access)
                #expect(reply.status == 200, "renews \(renews): a kept session outlives 30 s")
                // Past 120 s from the last call, or from sign-in.
                relay.emulator.advanceClock(seconds: renews ? 121 : 21)
                try await expectCleanEnd(relay, driver, tokens, appleID: appleID)
                await relay.stop()
            }
        }

        /// The next call is a 401 with `invalid_token`; the grant, its tokens and its sealed CloudKit token are gone;
        /// the refresh token is dead; and connecting again gives a working connection.
        func expectCleanEnd(
            _ relay: RelayHarness, _ driver: OAuthDriver, _ tokens: OAuthDriver.Tokens, appleID: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
            let (ended, _) = try await mcp.tool("get_me", token: tokens.access)
            #expect(ended.status == 401, "the session should have ended", sourceLocation: sourceLocation)
            #expect(
                ended.headers["www-authenticate"]?.contains(#"error="invalid_token""#) == true,
                sourceLocation: sourceLocation)
            let admin = OAuthAdmin(store: relay.application.backends.store)
            let userID = OAuthAdmin.userID(
                recordName: Emulator.userRecordName(appleID: appleID), userIDKey: relay.application.backends.userIDKey)
            let grants = try await admin.grants(userID: userID)
            #expect(grants.count == 0, "a dead session's grant must not stay", sourceLocation: sourceLocation)
            let counts = try await admin.statistics()
            for kind in ["GRANT", "GRANT_INDEX", "TOKEN", "REFRESH"] {
                #expect(counts[kind] == 0, "\(kind) left behind: \(counts)", sourceLocation: sourceLocation)
            }
            let refused = try await driver.refusedRefresh(tokens)
            #expect(
                refused.status == 400, "the refresh token of the ended grant still worked",
                sourceLocation: sourceLocation)
            #expect(refused.error == "invalid_grant", sourceLocation: sourceLocation)
            let fresh = try await driver.connect(appleID: appleID)
            let (back, content) = try await mcp.tool("get_me", token: fresh.access)
            #expect(back.status == 200, sourceLocation: sourceLocation)
            #expect(content?["today"] != nil, sourceLocation: sourceLocation)
        }
    }
}
