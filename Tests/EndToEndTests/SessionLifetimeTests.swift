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
    /// 120 s): however the session ends, the AI client gets `SIGN_IN_REQUIRED` (issue 39: it used to be a 401
    /// with the grant deleted), the grant waits for its person to sign in again, and connecting again works too.
    @Suite(.timeLimit(.minutes(10))) struct SessionLifetimeTests {
        /// A relay whose emulator gives sessions 30 s, or 120 s when kept signed in.
        func relay(renews: Bool) async throws -> RelayHarness {
            let relay = try await RelayHarness()
            relay.emulator.updateSettings {
                $0.tokenLifetime = .seconds(30)
                $0.keepSignedInLifetime = .seconds(120)
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

        /// The next call answers `SIGN_IN_REQUIRED` with a link (issue 39; it used to be a 401 with the grant
        /// deleted); the grant stays, waiting; its refresh token still works; and connecting again gives a working
        /// connection.
        func expectCleanEnd(
            _ relay: RelayHarness, _ driver: OAuthDriver, _ tokens: OAuthDriver.Tokens, appleID: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
            let (ended, _) = try await mcp.tool("get_me", token: tokens.access)
            #expect(ended.status == 200, sourceLocation: sourceLocation)
            #expect(
                ended.body?["result"]?["structuredContent"]?["error"]?["code"]?.stringValue == "SIGN_IN_REQUIRED",
                "the session should have ended", sourceLocation: sourceLocation)
            let admin = OAuthAdmin(store: relay.application.backends.store)
            let userID = OAuthAdmin.userID(
                recordName: Emulator.userRecordName(appleID: appleID), userIDKey: relay.application.backends.userIDKey)
            let grants = try await admin.grants(userID: userID)
            #expect(grants.count == 1, "a dead session's grant waits for a sign-in", sourceLocation: sourceLocation)
            _ = try await driver.refresh(tokens)
            let fresh = try await driver.connect(appleID: appleID)
            let (back, content) = try await mcp.tool("get_me", token: fresh.access)
            #expect(back.status == 200, sourceLocation: sourceLocation)
            #expect(content?["today"] != nil, sourceLocation: sourceLocation)
        }
    }
}
