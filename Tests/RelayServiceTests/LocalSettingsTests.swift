import Foundation
import Testing

@testable import RelayService

/// `mustdo-relay local`'s settings: the public server's `MUSTDO_*` names over `config.json`, defaults,
/// and every problem reported at once.
@Suite struct LocalSettingsTests {
    @Test func defaultsFollowThePublicServer() throws {
        let settings = try LocalSettings.load(environment: ["HOME": "/home/ann", "MUSTDO_CK_API_TOKEN": "t"])
        #expect(settings.home == "/home/ann/.mustdo")
        #expect(settings.tokenFile == "/home/ann/.mustdo/auth.json")
        #expect(settings.container == "iCloud.jp.lightning.mustdo")
        #expect(settings.zone == "MustDo")
        #expect(settings.callbackPort == 51234)
        #expect(settings.environment == .production)
        #expect(settings.baseURL == "https://api.apple-cloudkit.com")
        #expect(settings.logLevel == .info)
    }

    @Test func theEnvironmentWinsOverConfigJSON() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        try #"{"apiToken":"from-file","environment":"development","callbackPort":52000,"zoneName":"Z"}"#
            .write(toFile: home + "/config.json", atomically: true, encoding: .utf8)
        let fromFile = try LocalSettings.load(environment: ["MUSTDO_HOME": home])
        #expect(fromFile.apiToken == "from-file")
        #expect(fromFile.environment == .development)
        #expect(fromFile.callbackPort == 52000)
        #expect(fromFile.zone == "Z")
        let overridden = try LocalSettings.load(environment: [
            "MUSTDO_HOME": home, "MUSTDO_CK_API_TOKEN": "from-env", "MUSTDO_CALLBACK_PORT": "53000",
            "MUSTDO_CK_ENV": "PRODUCTION", "MUSTDO_LOG_LEVEL": "warn", "MUSTDO_BROWSER": "none",
            "MUSTDO_CK_BASE_URL": "http://127.0.0.1:8787/",
        ])
        #expect(overridden.apiToken == "from-env")
        #expect(overridden.callbackPort == 53000)
        #expect(overridden.environment == .production)
        #expect(overridden.logLevel == .warning)
        #expect(overridden.browser == nil)
        #expect(overridden.baseURL == "http://127.0.0.1:8787")
        let tilde = try LocalSettings.load(environment: [
            "HOME": "/h", "MUSTDO_HOME": "~/x", "MUSTDO_CK_API_TOKEN": "t",
        ])
        #expect(tilde.home == "/h/x")
    }

    @Test func everyProblemIsReported() {
        do {
            _ = try LocalSettings.load(environment: [
                "HOME": "/nonexistent", "MUSTDO_CK_ENV": "staging", "MUSTDO_CALLBACK_PORT": "80",
                "MUSTDO_LOG_LEVEL": "LOUD", "MUSTDO_CK_BASE_URL": "ftp://x",
            ])
            Issue.record("bad settings must be refused")
        } catch {
            #expect(error.problems.count == 5, "\(error)")
            #expect(error.description.contains("MUSTDO_CK_API_TOKEN is not set"))
            #expect(error.description.contains("MUSTDO_CALLBACK_PORT"))
        }
    }

    @Test func theBrowserCommand() {
        #expect(LocalSettings.browserCommand("python3 walk.py a@b", environment: [:]) == ["python3", "walk.py", "a@b"])
        #expect(LocalSettings.browserCommand("None", environment: ["DISPLAY": ":0"]) == nil)
        // No display, no browser: the link is printed and returned instead.
        #expect(LocalSettings.browserCommand(nil, environment: ["PATH": "/usr/bin:/bin"]) == nil)
    }
}
