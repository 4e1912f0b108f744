import Foundation
import RelayTestSupport
import Testing

@testable import RelayService

/// `mustdo-relay serve --check-config` as systemd's ExecStartPre runs it, one invalid setting per
/// test: it must exit non-zero and say which setting is wrong and what to do about it.
extension EndToEndSuite {
    @Suite(.timeLimit(.minutes(10))) struct ConfigurationCheckTests {
        /// Runs the check on a fresh service directory, changed by `prepare` and `environment`.
        private func check(
            _ environment: [String: String] = [:], extra: [String: String] = [:],
            prepare: (ServiceDirectory) throws -> Void = { _ in }
        ) async throws -> (status: Int32, output: String, service: ServiceDirectory) {
            let service = try await ServiceDirectory(extra: extra)
            try prepare(service)
            let relay = try ChildProcess(
                product: "mustdo-relay", ["serve", "--config", service.configFile, "--check-config"],
                environment: environment)
            let status = try await relay.waitForExit(timeout: .seconds(30))
            return (status, relay.text, service)
        }

        private func assertRefused(
            _ result: (status: Int32, output: String, service: ServiceDirectory), saying fragments: [String],
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            defer { result.service.remove() }
            #expect(result.status == 1, "\(result.output)", sourceLocation: sourceLocation)
            for fragment in fragments {
                #expect(
                    result.output.contains(fragment), "missing \"\(fragment)\" in:\n\(result.output)",
                    sourceLocation: sourceLocation)
            }
            #expect(!result.output.contains("configuration ok"), sourceLocation: sourceLocation)
        }

        @Test func testAValidServiceDirectoryPasses() async throws {
            let result = try await check()
            defer { result.service.remove() }
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("configuration ok"), "\(result.output)")
        }

        @Test func testUnderSystemdTheSecretsAreFoundInTheCredentialsDirectory() async throws {
            let service = try await ServiceDirectory()
            defer { service.remove() }
            let credentials = service.path + "/credentials"
            try FileManager.default.moveItem(atPath: service.path + "/secrets", toPath: credentials)
            let without = try ChildProcess(
                product: "mustdo-relay", ["serve", "--config", service.configFile, "--check-config"])
            let withoutStatus = try await without.waitForExit(timeout: .seconds(30))
            #expect(withoutStatus == 1, "\(without.text)")
            let with = try ChildProcess(
                product: "mustdo-relay", ["serve", "--config", service.configFile, "--check-config"],
                environment: ["CREDENTIALS_DIRECTORY": credentials])
            let withStatus = try await with.waitForExit(timeout: .seconds(30))
            #expect(withStatus == 0, "\(with.text)")
        }

        @Test func testAPlainHTTPIssuerThatIsNotLoopbackIsRefused() async throws {
            assertRefused(
                try await check(["RELAY_ISSUER": "http://relay.example.com"]),
                saying: [
                    "RELAY_ISSUER: the issuer must use https", "https://relay.example.com", "http://relay.example.com",
                ])
        }

        @Test func testAnIssuerWithAPathIsRefused() async throws {
            assertRefused(
                try await check(["RELAY_ISSUER": "https://relay.example.com/mcp"]),
                saying: ["RELAY_ISSUER: the issuer must have no path"])
        }

        @Test func testAMissingCloudKitContainerIsRefused() async throws {
            assertRefused(
                try await check(["RELAY_CLOUDKIT_CONTAINER": ""]),
                saying: ["RELAY_CLOUDKIT_CONTAINER: must be set (e.g. iCloud.com.example.app)"])
        }

        @Test func testAMissingCloudKitAPITokenFileIsRefused() async throws {
            let result = try await check { service in
                try FileManager.default.removeItem(atPath: service.path + "/secrets/cloudkit-api-token")
            }
            assertRefused(
                result,
                saying: [
                    "RELAY_CLOUDKIT_API_TOKEN_FILE: \(result.service.path)/secrets/cloudkit-api-token does not exist",
                    "from CloudKit Console",
                ])
        }

        @Test func testAWorldReadableMasterKeyFileIsRefused() async throws {
            let result = try await check { service in
                chmod(service.path + "/secrets/master-keys", 0o644)
            }
            assertRefused(
                result,
                saying: [
                    "RELAY_LOCAL_KEY_FILE:", "mode 644", "run: chmod 600 \(result.service.path)/secrets/master-keys",
                ])
        }

        @Test func testAGroupReadablePepperFileIsRefusedWithoutPrintingIt() async throws {
            let result = try await check { service in
                chmod(service.path + "/secrets/pepper", 0o640)
            }
            let pepper = try String(contentsOfFile: result.service.path + "/secrets/pepper", encoding: .utf8)
            let key = String(pepper.split(separator: " ").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(!key.isEmpty)
            #expect(!result.output.contains(key), "the pepper was printed")
            assertRefused(result, saying: ["RELAY_PEPPER_FILE:", "mode 640", "run: chmod 600"])
        }

        @Test func testABadRedirectAllowlistPatternIsRefused() async throws {
            assertRefused(
                try await check(["RELAY_OAUTH_REDIRECT_ALLOWLIST": "https://claude.ai/api/mcp/auth_callback, ftp:/nope"]
                ),
                saying: [
                    "RELAY_OAUTH_REDIRECT_ALLOWLIST: invalid pattern \"ftp:/nope\"", "scheme://host[:port or :*]/path",
                ])
        }

        @Test func testAnUnknownCloudKitEnvironmentIsRefusedNeverReadAsProduction() async throws {
            for value in ["staging", "prod", "developement", "production,development"] {
                assertRefused(
                    try await check(["RELAY_CLOUDKIT_ENVIRONMENT": value]),
                    saying: ["RELAY_CLOUDKIT_ENVIRONMENT: expected one of development, production, got \"\(value)\""])
            }
            // The operator's tool reads the same settings and refuses the same way.
            let service = try await ServiceDirectory()
            defer { service.remove() }
            let relayctl = try await Relayctl.run(
                ["config", "check", "--config", service.configFile],
                environment: ["RELAY_CLOUDKIT_ENVIRONMENT": "staging"])
            #expect(relayctl.status == 1, "\(relayctl.description)")
            #expect(
                relayctl.description.contains("RELAY_CLOUDKIT_ENVIRONMENT: expected one of development, production"),
                "\(relayctl.description)")
            // Both names are accepted in any case.
            let development = try await check(["RELAY_CLOUDKIT_ENVIRONMENT": "Development"])
            defer { development.service.remove() }
            #expect(development.status == 0, "\(development.output)")
            let configuration = try Configuration.load(
                configFile: nil, environment: ["RELAY_CLOUDKIT_ENVIRONMENT": "PRODUCTION"])
            #expect(configuration.cloudKit.environment == .production)
        }

        @Test func testAnUnknownStoreIsRefused() async throws {
            assertRefused(
                try await check(["RELAY_STORE": "postgres"]),
                saying: ["RELAY_STORE: expected one of dynamodb, memory, sqlite, got \"postgres\""])
        }

        @Test func testAnUnknownKeyServiceIsRefused() async throws {
            assertRefused(
                try await check(["RELAY_KEY_SERVICE": "vault"]),
                saying: ["RELAY_KEY_SERVICE: expected one of aws-kms, local, got \"vault\""])
        }

        @Test func testDynamoDBWithoutTableOrRegionIsRefused() async throws {
            assertRefused(
                try await check(["RELAY_STORE": "dynamodb", "AWS_REGION": "", "AWS_DEFAULT_REGION": ""]),
                saying: [
                    "RELAY_DYNAMODB_TABLE: must be set because RELAY_STORE is dynamodb",
                    "RELAY_AWS_REGION: must be set because RELAY_STORE is dynamodb",
                ])
        }

        @Test func testKMSWithoutAKeyIDIsRefused() async throws {
            assertRefused(
                try await check(["RELAY_KEY_SERVICE": "aws-kms", "RELAY_AWS_REGION": "eu-west-1"]),
                saying: ["RELAY_KMS_KEY_ID: must be set because RELAY_KEY_SERVICE is aws-kms"])
        }

        @Test func testASQLitePathWhoseDirectoryCannotBeCreatedIsRefused() async throws {
            let result = try await check { service in
                _ = FileManager.default.createFile(atPath: service.path + "/a-file", contents: Data("x".utf8))
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: service.configFile))
                handle.seekToEndOfFile()
                handle.write(Data("RELAY_SQLITE_PATH=\(service.path)/a-file/data/relay.sqlite\n".utf8))
                try handle.close()
            }
            assertRefused(
                result,
                saying: [
                    "RELAY_SQLITE_PATH: cannot create the directory \(result.service.path)/a-file/data",
                    "writable by the relay's user",
                ])
        }

        @Test func testADynamoDBEndpointThatRefusesConnectionsIsRefused() async throws {
            let closedPort = try freePort()
            var environment = MotoProcess.credentials
            environment["RELAY_STORE"] = "dynamodb"
            environment["RELAY_DYNAMODB_TABLE"] = "relay"
            environment["RELAY_AWS_REGION"] = "us-east-1"
            environment["RELAY_DYNAMODB_ENDPOINT"] = "http://127.0.0.1:\(closedPort)"
            assertRefused(
                try await check(environment),
                saying: [
                    "RELAY_DYNAMODB_TABLE: cannot reach table relay at http://127.0.0.1:\(closedPort)",
                    "check RELAY_DYNAMODB_ENDPOINT, RELAY_AWS_REGION and the network",
                ])
        }

        @Test func testAWSKeysInTheConfigFileAreRefusedWithoutBeingPrinted() async throws {
            let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYCONFIGFILE"
            let result = try await check { service in
                let handle = try #require(FileHandle(forWritingAtPath: service.configFile))
                handle.seekToEndOfFile()
                handle.write(Data("AWS_ACCESS_KEY_ID=AKIACONFIGFILE\nAWS_SECRET_ACCESS_KEY=\(secret)\n".utf8))
                try handle.close()
            }
            #expect(!result.output.contains(secret), "\(result.output)")
            assertRefused(
                result,
                saying: [
                    "AWS_SECRET_ACCESS_KEY: AWS credentials are not read from the config file",
                    "AWS_ACCESS_KEY_ID: AWS credentials are not read from the config file",
                    "AWS_SHARED_CREDENTIALS_FILE, mode 0600",
                ])
        }

        @Test func testBadNumbersAndDurationsAreRefused() async throws {
            assertRefused(
                try await check([
                    "RELAY_OAUTH_ACCESS_TOKEN_TTL": "10", "RELAY_HTTP_HEADER_TIMEOUT": "soon",
                    "RELAY_VAULT_CACHE_SIZE": "-1",
                    "RELAY_OAUTH_METADATA_DOCUMENTS": "maybe",
                ]),
                saying: [
                    "RELAY_OAUTH_ACCESS_TOKEN_TTL: expected a whole number in 60...86400, got \"10\"",
                    "RELAY_HTTP_HEADER_TIMEOUT: expected a number of seconds from 0.001 to 86400, got \"soon\"",
                    "RELAY_VAULT_CACHE_SIZE: expected a whole number in 0...1000000, got \"-1\"",
                    "RELAY_OAUTH_METADATA_DOCUMENTS: expected on or off, got \"maybe\"",
                ])
        }

        @Test func testAMisspelledSettingIsRefused() async throws {
            assertRefused(
                try await check(["RELAY_OAUTH_REDIRECT_ALOWLIST": "https://example.com/cb"]),
                saying: ["RELAY_OAUTH_REDIRECT_ALOWLIST: is not a setting of this version"])
        }

        @Test func testEveryProblemIsReportedInOneRun() async throws {
            let result = try await check(["RELAY_CLOUDKIT_CONTAINER": ""]) { service in
                chmod(service.path + "/secrets/master-keys", 0o604)
                try FileManager.default.removeItem(atPath: service.path + "/secrets/binding-secret")
            }
            assertRefused(
                result,
                saying: [
                    "3 problem(s)", "RELAY_CLOUDKIT_CONTAINER", "RELAY_LOCAL_KEY_FILE",
                    "RELAY_BINDING_SECRET_FILE: \(result.service.path)/secrets/binding-secret does not exist; create it with `mustdo-relayctl keys generate`",
                ])
        }
    }
}
