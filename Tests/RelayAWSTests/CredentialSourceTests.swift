import Foundation
import RelayHTTP
import RelayStore
import RelaySync
import RelayTestSupport
import Testing

@testable import RelayAWS

/// The container endpoint and the instance metadata service, each a real HTTP server on its own
/// loopback address, reached through the standard variables.
@Suite(.serialized)
struct CredentialSourceTests {
    let clock = ManualClock()
    let http = AWSTestSupport.httpClient

    func resolve(_ environment: [String: String]) throws -> (AWSCredentialSourceKind, any AWSCredentialsProvider) {
        try AWSCredentialChain.resolve(
            environment: environment, http: http,
            options: AWSCredentialChain.Options(region: "eu-west-1", homeDirectory: nil, clock: clock))
    }

    @Test func instanceMetadataUsesAnIMDSv2SessionToken() async throws {
        let imds = try FakeInstanceMetadata(clock: clock)
        let (kind, provider) = try resolve(["AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.base + "/"])
        #expect(kind == .instanceMetadata)
        let credentials = try await provider.credentials()
        #expect(credentials.accessKeyID == "ASIAIMDS0001")
        #expect(credentials.secretAccessKey == "fake-secret-ASIAIMDS0001")
        #expect(credentials.sessionToken == "fake-token-ASIAIMDS0001")
        #expect(credentials.expiration == clock.now().rounded(.down) + 3600)
        #expect(imds.requestedTTLs == ["21600"])

        // The session token is kept for the next fetch; when IMDS no longer accepts it, one new one.
        let source = try #require((provider as? RefreshingCredentialsProvider)?.source)
        _ = try await source.fetch()
        #expect(imds.requestedTTLs.count == 1)
        imds.expireTokens()
        #expect(try await source.fetch().accessKeyID == "ASIAIMDS0003")
        #expect(imds.requestedTTLs.count == 2)
        // After the token's TTL, a new one without waiting for a 401.
        clock.advance(by: 21_600)
        _ = try await source.fetch()
        #expect(imds.requestedTTLs.count == 3)
    }

    @Test func instanceMetadataFailuresSayWhatToCheck() async throws {
        let imds = try FakeInstanceMetadata(clock: clock)
        imds.issuer.fail(with: 404)
        let (_, provider) = try resolve(["AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.base])
        do {
            _ = try await provider.credentials()
            Issue.record("credentials without a role")
        } catch {
            #expect(
                "\(error)".contains(
                    "at \(imds.base) has no IAM role credentials (HTTP 404): attach an instance profile"))
            #expect("\(error)".contains("the last source of the chain"))
        }
        // A port nobody listens on: "not on EC2".
        let port = try freePort()
        let (_, unreachable) = try resolve(["AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.3:\(port)"])
        do {
            _ = try await unreachable.credentials()
            Issue.record("credentials from nowhere")
        } catch {
            #expect("\(error)".contains("cannot connect to the instance metadata service"))
            #expect("\(error)".contains("hop limit"))
        }
        #expect(throws: AWSError.self) {
            try resolve(["AWS_EC2_METADATA_DISABLED": "true"])
        }
        #expect(throws: AWSError.self) {
            try resolve(["AWS_EC2_METADATA_SERVICE_ENDPOINT": "169.254.169.254"])
        }
    }

    @Test func containerEndpointSendsTheTokenFileReadOnEveryFetch() async throws {
        let ecs = try FakeContainerEndpoint(clock: clock)
        let directory = try temporaryDirectory(prefix: "relay-aws").path
        let tokenFile = directory + "/eks-pod-identity-token"
        try "first-token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        ecs.expect(authorization: "first-token")
        let (kind, provider) = try resolve([
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": ecs.url, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": tokenFile,
            "AWS_CONTAINER_AUTHORIZATION_TOKEN": "ignored-when-the-file-is-set",
        ])
        #expect(kind == .container)
        #expect(try await provider.credentials().accessKeyID == "ASIAECS00001")
        // The agent rotates the file; the next fetch sends the new content.
        try "second-token".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        ecs.expect(authorization: "second-token")
        let source = try #require((provider as? RefreshingCredentialsProvider)?.source)
        #expect(try await source.fetch().accessKeyID == "ASIAECS00002")
        #expect(ecs.authorizations == ["first-token", "second-token"])
        // A refused token is an error naming the endpoint's status, not the token.
        ecs.expect(authorization: "something-else")
        do {
            _ = try await source.fetch()
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains("HTTP 401") && !"\(error)".contains("second-token"))
        }
    }

    @Test func containerRelativeURIAndTheTokenVariable() async throws {
        let ecs = try FakeContainerEndpoint(host: "127.0.0.4", clock: clock)
        ecs.expect(authorization: "task-token")
        var options = AWSCredentialChain.Options(region: "eu-west-1", homeDirectory: nil, clock: clock)
        options.containerHost = "127.0.0.4:\(URL(string: ecs.base)!.port!)"
        let (kind, provider) = try AWSCredentialChain.resolve(
            environment: [
                "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/creds", "AWS_CONTAINER_AUTHORIZATION_TOKEN": "task-token",
                // The relative URI wins, as in botocore.
                "AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://127.0.0.9:1/elsewhere",
            ], http: http, options: options)
        #expect(kind == .container)
        #expect(try await provider.credentials().accessKeyID == "ASIAECS00001")
        let standard = try ContainerCredentialSource.relative("/creds", tokenFile: nil, token: nil, http: http)
        #expect(standard.url == "http://169.254.170.2/creds")
    }

    @Test func aFullURIOverPlainHTTPMustStayOnTheHost() throws {
        for allowed in [
            "http://127.0.0.1:8080/creds", "http://127.9.9.9/creds", "http://[::1]:80/creds", "http://localhost/creds",
            "http://169.254.170.2/v2/credentials/x", "http://169.254.170.23/v1/credentials",
            "http://[fd00:ec2::23]/v1/credentials", "https://credentials.example.com/role",
        ] {
            #expect(throws: Never.self, "\(allowed)") {
                try ContainerCredentialSource.full(allowed, tokenFile: nil, token: nil, http: http)
            }
        }
        for refused in [
            "http://10.0.0.1/creds", "http://169.254.169.254/latest", "http://example.com/creds",
            "http://127.0.0.1.example.com/creds", "http://user@127.0.0.1/creds", "ftp://127.0.0.1/creds", "/creds",
            "http://[::2]/creds",
        ] {
            #expect(throws: AWSError.self, "\(refused)") {
                try ContainerCredentialSource.full(refused, tokenFile: nil, token: nil, http: http)
            }
        }
        #expect(throws: AWSError.self) {
            try ContainerCredentialSource.relative("creds", tokenFile: nil, token: nil, http: http)
        }
    }
}
