import Foundation
import RelayCloudKit
import RelayEmulator
import Testing

@Suite struct CloudKitAuthTests {
    @Test func signInURLComesFromThe421() async throws {
        let harness = try Harness()
        let url = try await harness.client.signInURL()
        #expect(url.hasPrefix(harness.emulator.baseURL + "/IDMSWebAuth/auth?oauth_token="))
    }

    @Test func signInURLWithAWrongAPITokenIsAConfigurationFault() async throws {
        let harness = try Harness(apiToken: "wrong")
        let error = await failure { try await harness.client.signInURL() }
        #expect(error?.kind == .authenticationFailed)
        #expect(error?.status == 401)
        #expect(error?.serverErrorCode == "AUTHENTICATION_FAILED")
    }

    /// `users/caller` without a web token: 421 means the API token is taken, a refusal that it is
    /// not, and an outage says nothing.
    @Test func checkAPITokenTellsAcceptedRefusedAndUnknownApart() async throws {
        let good = try Harness()
        #expect(await good.client.checkAPIToken() == .accepted)
        let wrong = try Harness(apiToken: "wrong")
        #expect(await wrong.client.checkAPIToken() == .refused)
        good.emulator.injectFault(status: 503, count: 10)
        #expect(await good.client.checkAPIToken() == .unknown)
        // The check neither needs nor touches anyone's session.
        good.emulator.clearFaults()
        let token = try good.signIn()
        #expect(await good.client.checkAPIToken() == .accepted)
        _ = try await good.client.zones(token: token)
    }

    @Test func callerReturnsTheUserAndTheRotatedToken() async throws {
        let harness = try Harness()
        let token = try harness.signIn("alice@example.com")
        let response = try await harness.client.caller(token: token)
        #expect(response.value.userRecordName == Emulator.userRecordName(appleID: "alice@example.com"))
        let rotated = try #require(response.rotatedToken)
        #expect(rotated != token)
        // Documented behaviour (the emulator's default): the old token died with the rotation.
        let error = await failure { try await harness.client.caller(token: token) }
        #expect(error?.kind == .sessionDead)
        #expect(error?.redirectURL?.contains("/IDMSWebAuth/auth") == true)
        let again = try await harness.client.caller(token: rotated)
        #expect(again.value == response.value)
        #expect(again.nextToken(after: rotated) != rotated)
    }

    @Test func callerAcceptsTheBareShape() async throws {
        var settings = EmulatorSettings()
        settings.callerShape = "bare"
        let harness = try Harness(settings: settings)
        let response = try await harness.client.caller(token: try harness.signIn("bob@example.com"))
        #expect(response.value.userRecordName == Emulator.userRecordName(appleID: "bob@example.com"))
    }

    @Test func oldTokenKeepsWorkingInLiveMode() async throws {
        var settings = EmulatorSettings()
        settings.rotation = .keep
        let harness = try Harness(settings: settings)
        let token = try harness.signIn()
        let first = try await harness.client.zones(token: token)
        #expect(first.rotatedToken != nil)
        let second = try await harness.client.zones(token: token)
        #expect(second.value == first.value)
    }

    @Test func expiredSessionIsSessionDead() async throws {
        let harness = try Harness()
        let token = try harness.signIn("carol@example.com")
        try harness.emulator.expireSessions(user: "carol@example.com")
        let error = await failure { try await harness.client.zones(token: token) }
        #expect(error?.kind == .sessionDead)
        #expect(error?.status == 421)
    }

    @Test func tokenLifetimeEndsTheSession() async throws {
        let harness = try Harness()
        let token = try harness.signIn()
        harness.emulator.advanceClock(seconds: 1801)
        let error = await failure { try await harness.client.zones(token: token) }
        #expect(error?.kind == .sessionDead)
    }

    @Test func rotationRenewsTheLifetime() async throws {
        let harness = try Harness()
        var token = try harness.signIn()
        for _ in 0..<3 {
            harness.emulator.advanceClock(seconds: 1000)
            token = try await harness.client.zones(token: token).nextToken(after: token)
        }
    }

    /// A 401 for an ended session looks exactly like a 401 for a wrong API token: the client says
    /// `authenticationFailed`, never `sessionDead`, and leaves the verdict to `checkAPIToken()`.
    @Test func authenticationFailed401IsNotSessionDeadByItself() async throws {
        var settings = EmulatorSettings()
        settings.deadTokenStatus = 401
        let harness = try Harness(settings: settings)
        let token = try harness.signIn()
        try harness.emulator.expireSessions()
        let error = await failure { try await harness.client.lookup(["x"], token: token) }
        #expect(error?.kind == .authenticationFailed)
        #expect(error?.status == 401)
        #expect(error?.serverErrorCode == "AUTHENTICATION_FAILED")
    }

    @Test func advancedDataProtectionDenyIsAccountUnsupported() async throws {
        var settings = EmulatorSettings()
        settings.protectedSessions = .deny
        let harness = try Harness(settings: settings)
        let token = try harness.signIn("dave@example.com")
        try harness.emulator.setUserFlags("dave@example.com", advancedDataProtection: true)
        let error = await failure { try await harness.client.query(RecordQuery(recordType: "Todo"), token: token) }
        #expect(error?.kind == .accountUnsupported)
        #expect(error?.status == 403)
    }

    @Test func advancedDataProtectionExpireEndsTheSession() async throws {
        let harness = try Harness()
        let token = try harness.signIn("erin@example.com")
        try harness.emulator.setUserFlags("erin@example.com", advancedDataProtection: true)
        let error = await failure { try await harness.client.zones(token: token) }
        #expect(error?.kind == .sessionDead)
    }

    @Test func errorsNeverPrintTokens() async throws {
        let harness = try Harness()
        let token = try harness.signIn()
        try harness.emulator.expireSessions()
        let error = try #require(await failure { try await harness.client.zones(token: token) })
        #expect(!"\(error)".contains(token.rawValue))
        #expect("\(token)" == "<redacted>")
        #expect("\(CloudKitAPIToken("secret"))" == "<redacted>")
    }
}
