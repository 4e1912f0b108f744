import Foundation
import RelayOAuth
import RelayService
import Testing

extension EndToEndSuite {
    /// `config/relay.env.example` and the configuration cannot drift apart: the names come from the
    /// settings reader itself, which records every name the configuration reads.
    @Suite(.timeLimit(.minutes(10))) struct SettingsExampleTests {
        static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/relay.env.example")

        private func exampleLines() throws -> [String] {
            try String(contentsOf: Self.example, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false
            )
            .map(String.init)
        }

        private static func settingName(_ line: String) -> String? {
            guard line.hasPrefix("RELAY_"), let equals = line.firstIndex(of: "=") else { return nil }
            return String(line[..<equals])
        }

        @Test func testEverySettingTheConfigurationReadsIsInTheExampleWithAComment() throws {
            let read = Configuration.settingNames.filter { $0.hasPrefix("RELAY_") }
            #expect(read.count > 50, "the reader recorded too few names to be the whole configuration")
            let lines = try exampleLines()
            for name in read {
                guard let index = lines.firstIndex(where: { Self.settingName($0) == name }) else {
                    Issue.record("\(name) is read by the configuration but missing from config/relay.env.example")
                    continue
                }
                // Walk up over the setting lines of its group to the comment that explains them.
                var above = index - 1
                while above >= 0, Self.settingName(lines[above]) != nil { above -= 1 }
                let comment = above >= 0 ? lines[above] : ""
                #expect(
                    comment.hasPrefix("# ") && !comment.hasPrefix("# ---"),
                    "\(name) in config/relay.env.example has no comment above it (found \"\(comment)\")")
            }
        }

        @Test func testEveryNameInTheExampleIsASetting() throws {
            let read = Set(Configuration.settingNames)
            let names = try exampleLines().compactMap(Self.settingName)
            #expect(names.count == Set(names).count, "a setting appears twice in the example")
            for name in names {
                #expect(
                    read.contains(name), "\(name) is in config/relay.env.example but the configuration never reads it")
            }
        }

        @Test func testTheExampleIsAValidConfiguration() throws {
            let variables = try EnvFile.load(Self.example.path)
            let configuration = try Configuration.load(from: variables)
            #expect(configuration.issuer == "https://relay.example.com")
            #expect(throws: Never.self) { try configuration.validateForService() }
        }

        /// The OAuth values the example shows are the defaults the code has, written once in RelayOAuth's
        /// `OAuthConfiguration`: the example read in full equals the defaults, and the defaults turn back
        /// into exactly RelayOAuth's own configuration.
        @Test func testTheExampleShowsTheCodesOAuthDefaults() throws {
            let example = try Configuration.load(from: EnvFile.load(Self.example.path))
            let defaults = try Configuration.load(from: ["RELAY_ISSUER": "https://relay.example.com"])
            #expect(example.oauth == defaults.oauth)
            #expect(defaults.oauth == OAuthSettings())
            let server = try defaults.oauthConfiguration()
            let spec = OAuthConfiguration(issuer: "https://relay.example.com")
            #expect(server.lifetimes == spec.lifetimes)
            #expect(server.registrationRateLimit == spec.registrationRateLimit)
            #expect(server.tokenFailureLimit == spec.tokenFailureLimit)
            #expect(server.maximumUnusedClients == spec.maximumUnusedClients)
            #expect(server.allowsLoopbackMetadataDocuments == spec.allowsLoopbackMetadataDocuments)
            // The check can fail: a changed value in the example is seen.
            var changed = try EnvFile.load(Self.example.path)
            changed["RELAY_OAUTH_CODE_TTL"] = "301"
            #expect(try Configuration.load(from: changed).oauth != defaults.oauth)
        }

        @Test func testAVariableThatIsNotASettingIsRefused() {
            let error = #expect(throws: (any Error).self) {
                try Configuration.load(from: ["RELAY_ISSUER": "https://relay.example.com", "RELAY_PROT": "1"])
            }
            if let error {
                #expect("\(error)".contains("RELAY_PROT: is not a setting"), "\(error)")
            }
        }
    }
}
