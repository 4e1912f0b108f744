import RelayOAuth
import Testing

@testable import RelayService

/// The OAuth configuration's problems arrive as typed values; the setting a message names follows
/// from the case (every `.issuer` problem is `RELAY_ISSUER`), not from words in the sentence.
struct OAuthProblemSettingTests {
    private func problems(_ configuration: Configuration) -> [Configuration.Problem] {
        do {
            _ = try configuration.oauthConfiguration()
            return []
        } catch {
            return error.problems
        }
    }

    @Test func issuerProblemsNameTheIssuerAndTheRestTheOAuthSettings() {
        var configuration = Configuration()
        configuration.issuer = "https://relay.example/base"
        configuration.oauth.lifetimes.consentWindow = .seconds(900)  // longer than a pending request lives (600 s)
        let found = problems(configuration)
        #expect(found.map(\.setting) == ["RELAY_ISSUER", "RELAY_OAUTH_*"])
        #expect(found.first?.message.hasPrefix("\(OAuthConfiguration.Problem.issuer(.hasPathOrQuery))") == true)
        #expect(found.last?.message == "\(OAuthConfiguration.Problem.consentWindowOutlivesPendingRequest)")
    }

    @Test func aUsableConfigurationHasNone() {
        var configuration = Configuration()
        configuration.issuer = "https://relay.example"
        #expect(problems(configuration).isEmpty)
    }
}
