import Foundation
import RelayAWS
import RelayJSON
import Testing

@testable import RelayService

/// How the relay hands the AWS variables to the credential chain, refuses AWS secrets in the
/// config file, and logs credential refreshes.
@Suite struct AWSWiringTests {
    private func configFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("aws-\(UUID().uuidString).env").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private let base = """
        RELAY_ISSUER=https://relay.example.com
        RELAY_CLOUDKIT_CONTAINER=iCloud.com.example.app
        RELAY_STORE=dynamodb
        RELAY_DYNAMODB_TABLE=mustdo-relay

        """

    @Test func theChainsVariablesComeFromTheFileAndTheEnvironmentWins() throws {
        let path = try configFile(
            base + "AWS_REGION=eu-west-1\nAWS_ROLE_ARN=arn:aws:iam::1:role/file\nAWS_WEB_IDENTITY_TOKEN_FILE=/t\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let configuration = try Configuration.load(
            configFile: path, environment: ["AWS_ROLE_ARN": "arn:aws:iam::1:role/env", "HOME": "/root"])
        #expect(
            configuration.awsVariables == [
                "AWS_REGION": "eu-west-1", "AWS_ROLE_ARN": "arn:aws:iam::1:role/env",
                "AWS_WEB_IDENTITY_TOKEN_FILE": "/t",
            ])
        guard case .dynamoDB(_, "eu-west-1", _) = configuration.store else {
            Issue.record("the region from the file")
            return
        }
    }

    @Test func awsSecretsInTheFileAreRefusedWithTheOtherProblems() throws {
        let path = try configFile(
            base
                + "AWS_SECRET_ACCESS_KEY=file-secret\nAWS_SESSION_TOKEN=file-token\nAWS_CONTAINER_AUTHORIZATION_TOKEN=t\nRELAY_PORT=high\n"
        )
        defer { try? FileManager.default.removeItem(atPath: path) }
        // The same keys in the environment are the standard first source: accepted.
        #expect(throws: Never.self) {
            try Configuration.load(
                configFile: nil,
                environment: [
                    "RELAY_ISSUER": "https://relay.example.com", "AWS_ACCESS_KEY_ID": "AKIA",
                    "AWS_SECRET_ACCESS_KEY": "s",
                ])
        }
        do {
            _ = try Configuration.load(configFile: path, environment: ["AWS_REGION": "eu-west-1"])
            Issue.record("accepted")
        } catch let errors as ConfigurationErrors {
            #expect(
                errors.problems.map(\.setting).sorted() == [
                    "AWS_CONTAINER_AUTHORIZATION_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "RELAY_PORT",
                ])
            #expect(!"\(errors)".contains("file-secret") && !"\(errors)".contains("file-token"))
        }
    }

    @Test func refreshEventsBecomeLogLinesAndCounters() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("aws-log-\(UUID().uuidString)").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer {
            close(fd)
            try? FileManager.default.removeItem(atPath: path)
        }
        let logger = Logger(minimumLevel: .info, fd: fd)
        let metrics = Metrics()
        metrics.declareCounter("relay_aws_credential_refreshes_total", help: "", labels: ["source", "outcome"])
        Backends.record(.refreshed(source: .webIdentity, expiresIn: 3600), logger: logger, metrics: metrics)
        let reason = AWSError.credentials("STS refused AssumeRoleWithWebIdentity: InvalidIdentityToken (HTTP 400)")
        Backends.record(
            .refreshFailed(source: .webIdentity, error: reason, validFor: 540, retryIn: 2), logger: logger,
            metrics: metrics)
        Backends.record(
            .refreshFailed(source: .instanceMetadata, error: reason, validFor: nil, retryIn: 60), logger: logger,
            metrics: metrics)
        logger.close()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try JSONValue(parsing: Array($0.utf8))
        }
        #expect(
            lines.map { $0["event"]?.stringValue } == [
                "aws.credentials_refreshed", "aws.credentials_refresh_failed", "aws.credentials_refresh_failed",
            ])
        #expect(lines.map { $0["level"]?.stringValue } == ["info", "warning", "error"])
        #expect(lines[1]["outcome"]?.stringValue == "web-identity" && lines[1]["count"]?.intValue == 540)
        #expect(lines[1]["reason"]?.stringValue == "\(reason)")
        #expect(metrics.value("relay_aws_credential_refreshes_total", ["web-identity", "ok"]) == 1)
        #expect(metrics.value("relay_aws_credential_refreshes_total", ["web-identity", "failed"]) == 1)
    }
}
