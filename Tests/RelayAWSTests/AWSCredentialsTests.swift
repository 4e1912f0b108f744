import Foundation
import RelayStore
import RelaySync
import Testing

@testable import RelayAWS

/// Credentials and endpoint settings: loaded from the environment, redacted everywhere.
struct AWSCredentialsTests {
    let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY"
    let token = "IQoJb3JpZ2luX2VjSESSIONTOKEN"

    @Test func neitherSecretNorTokenIsEverPrinted() throws {
        let credentials = try AWSCredentials(
            accessKeyID: "ASIAEXAMPLEKEY", secretAccessKey: secret, sessionToken: token)
        var dumped = ""
        dump(credentials, to: &dumped)
        let configuration = AWSConfiguration(region: "eu-west-1", credentials: credentials)
        let signer = SigV4Signer(credentials: credentials, region: "eu-west-1", service: "kms")
        let signature = signer.sign(
            SigV4Request(method: "POST", headers: [("Host", "kms.eu-west-1.amazonaws.com")]), epochSeconds: 0)
        dump(signature, to: &dumped)
        for text in [
            "\(credentials)", String(reflecting: credentials), dumped, "\(configuration)",
            String(reflecting: configuration), "\(signer)", "\(signature)",
        ] {
            #expect(!text.contains(secret) && !text.contains(token) && !text.contains(signature.signature), "\(text)")
        }
        #expect("\(credentials)".contains("ASIA"), "the key is still recognisable")
    }

    @Test func providersNeverShowTheirCredentialsOrTokens() async throws {
        let ecs = try FakeContainerEndpoint(host: "127.0.0.8", clock: ManualClock(start: Date().timeIntervalSince1970))
        let chain = try AWSCredentialChain.resolve(
            environment: ["AWS_CONTAINER_CREDENTIALS_FULL_URI": ecs.url, "AWS_CONTAINER_AUTHORIZATION_TOKEN": token],
            http: AWSTestSupport.httpClient,
            options: AWSCredentialChain.Options(region: "eu-west-1", homeDirectory: nil))
        let credentials = try await chain.provider.credentials()
        var dumped = ""
        dump(chain.provider, to: &dumped)
        dump((chain.provider as? RefreshingCredentialsProvider)?.source, to: &dumped)
        let configuration = AWSConfiguration(region: "eu-west-1", credentials: chain.provider)
        for text in [dumped, "\(chain.provider)", "\(configuration)", String(reflecting: configuration)] {
            #expect(!text.contains(token) && !text.contains(credentials.secretAccessKey), "\(text)")
            #expect(!text.contains(credentials.sessionToken ?? "-"), "\(text)")
        }
    }

    @Test func fromEnvironment() throws {
        let credentials = try AWSCredentials.fromEnvironment([
            "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": secret, "AWS_SESSION_TOKEN": token,
        ])
        #expect(credentials.accessKeyID == "AKIDENV" && credentials.hasSessionToken)
        let longTerm = try AWSCredentials.fromEnvironment([
            "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": secret, "AWS_SESSION_TOKEN": "",
        ])
        #expect(!longTerm.hasSessionToken, "an empty token means none")
        #expect(throws: AWSError.self) { try AWSCredentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "AKIDENV"]) }
    }

    @Test func endpoints() throws {
        #expect(try AWSEndpoint("http://127.0.0.1:8000/").host == "127.0.0.1:8000")
        #expect(try AWSEndpoint("https://kms.eu-west-1.amazonaws.com:443").host == "kms.eu-west-1.amazonaws.com")
        #expect(
            try AWSEndpoint.standard(service: "dynamodb", region: "eu-west-1").base
                == "https://dynamodb.eu-west-1.amazonaws.com")
        for bad in ["ftp://host", "http://", "http://host/path", "http://user@host", "dynamodb.local:8000"] {
            #expect(throws: AWSError.self, "\(bad)") { try AWSEndpoint(bad) }
        }
        #expect(throws: AWSError.self) { try AWSEndpoint.standard(service: "kms", region: "eu west/1") }
    }

    @Test func backoffStaysUnderItsCeiling() {
        let policy = RetryPolicy(maximumAttempts: 5, baseDelay: .milliseconds(50), maximumDelay: .milliseconds(120))
        for retry in 0..<6 {
            let ceiling = min(Duration.milliseconds(120), .milliseconds(50) * (1 << retry))
            for _ in 0..<100 { #expect(policy.delay(beforeRetry: retry) <= ceiling) }
        }
        #expect(RetryPolicy(maximumAttempts: 0).maximumAttempts == 1)
    }
}
