import Foundation
import RelayHTTP
import RelayJSON
import RelaySync
import RelayTestSupport
import Testing

@testable import RelayAWS

/// `mustdo-relay serve` on DynamoDB and KMS (moto) with nothing secret in its environment: role
/// credentials from STS for a web identity token (EKS), or from the instance metadata service
/// (EC2), renewed while it serves. The table and the key live in the role's account (moto files
/// resources by the account of the key that made them), so the relay finds them only if it
/// really signs with the role's credentials.
extension AcceptanceSuite {
    @Suite(.timeLimit(.minutes(10))) struct RoleCredentialsTests {
        /// Variables that keep the runner's own AWS settings (keys, profiles in ~/.aws) out of the relay.
        static func isolated(home: String) -> [String: String] {
            [
                "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
                "AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_ROLE_ARN": "", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
                "AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_SHARED_CREDENTIALS_FILE": "", "AWS_CONFIG_FILE": "",
                "HOME": home,
            ]
        }

        @Test func testServeWithWebIdentityCredentialsFromSTS() async throws {
            let http = try HTTPClient.forTests()
            defer { http.shutdown() }
            let account = "111122223333"
            let moto = try await MotoProcess(http: http, roleAccount: account)
            let emulator = try await EmulatorProcess(http: http)
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("role-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: home) }
            let tokenFile = home + "/eks-token"
            try "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2lnbmF0dXJl".write(
                toFile: tokenFile, atomically: true, encoding: .utf8)
            // The role settings are in the config file: only secrets are refused there.
            var settings = moto.relaySettings
            settings["AWS_WEB_IDENTITY_TOKEN_FILE"] = tokenFile
            settings["AWS_ROLE_ARN"] = MotoProcess.roleARN(account: account)
            settings["AWS_ROLE_SESSION_NAME"] = "relay-acceptance"
            settings["AWS_ENDPOINT_URL_STS"] = moto.endpoint
            var environment = Self.isolated(home: home)
            for name in ["AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN"] { environment.removeValue(forKey: name) }
            let setup = try await RelaySetup(emulator: emulator, settings: settings, environment: environment)
            defer { setup.remove() }

            let check = try ChildProcess(
                product: "mustdo-relay", ["serve", "--config", setup.configFile, "--check-config"],
                environment: environment)
            let checkStatus = try await check.waitForExit(timeout: .seconds(60))
            #expect(checkStatus == 0, "\(check.text)")

            let relay = try await setup.start(http: http)
            let (client, tokens) = try await RelayClient.connected(
                http: http, appleID: "eks@example.com", at: relay.base)
            expectResult(try await client.callTool("get_me", access: tokens.access, at: relay.base))
            let log = relay.child.text
            #expect(log.contains(#""event":"aws.credentials","outcome":"web-identity""#), "\(log)")
            #expect(log.contains(#""event":"aws.credentials_refreshed","outcome":"web-identity""#), "\(log)")
            #expect(!(log.contains("acceptance.token") || log.contains("eyJhbGciOiJSUzI1NiJ9")), "a token in the log")
            let refreshes = try await relay.metric(
                #"relay_aws_credential_refreshes_total{source="web-identity",outcome="ok"}"#)
            #expect(refreshes == 1)
        }

        @Test func testServeWithInstanceMetadataCredentialsRenewedWhileServing() async throws {
            let http = try HTTPClient.forTests()
            defer { http.shutdown() }
            let account = "222233334444"
            let moto = try await MotoProcess(http: http, roleAccount: account)
            // Credentials live 70 s: usable for 10 s (never within their last minute), so the relay
            // renews them several times during the test.
            let imds = try InstanceMetadata(moto: moto, account: account, lifetime: 70, http: http)
            let emulator = try await EmulatorProcess(http: http)
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("role-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: home) }
            var environment = Self.isolated(home: home)
            environment["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.base
            let setup = try await RelaySetup(emulator: emulator, settings: moto.relaySettings, environment: environment)
            defer { setup.remove() }

            let relay = try await setup.start(http: http)
            var (client, tokens) = try await RelayClient.connected(
                http: http, appleID: "ec2@example.com", at: relay.base)
            expectResult(try await client.callTool("get_me", access: tokens.access, at: relay.base))
            let issuedBefore = imds.issued
            // Past the first credentials' usable life: the next calls need new ones, and get them.
            try await Task.sleep(for: .seconds(11))
            for _ in 0..<3 {
                expectResult(try await client.callTool("list_todos", access: tokens.access, at: relay.base))
                tokens = try await client.refresh(tokens.refresh, at: relay.base).get()
            }
            // A second connection: a new grant sealed with a new KMS data key under the renewed credentials.
            (client, tokens) = try await RelayClient.connected(http: http, appleID: "ec2-2@example.com", at: relay.base)
            expectResult(try await client.callTool("get_me", access: tokens.access, at: relay.base))
            #expect(imds.issued > issuedBefore, "the relay kept using credentials past their life")
            #expect(imds.sessionTokens == 1, "one IMDSv2 session token serves every fetch")
            let log = relay.child.text
            #expect(log.contains(#""event":"aws.credentials","outcome":"instance-metadata""#), "\(log)")
            #expect(!log.contains("aws.credentials_refresh_failed"), "\(log)")
            #expect(!log.contains("imds-session-token"), "a session token in the log")
            for secret in imds.secrets { #expect(!log.contains(secret), "a secret in the log") }
        }
    }
}

/// A minimal EC2 instance metadata service (IMDSv2) on 127.0.0.7 that hands out credentials of
/// the relay's role minted by moto's STS, each living `lifetime` seconds.
final class InstanceMetadata: Sendable {
    private final class Counters: Sendable {
        let value = Locked<(issued: Int, sessions: Int, secrets: [String])>((0, 0, []))
    }

    private let server: Server
    private let counters: Counters

    var base: String { "http://127.0.0.7:\(server.port)" }
    var issued: Int { counters.value.withLock { $0.issued } }
    var sessionTokens: Int { counters.value.withLock { $0.sessions } }
    /// Every secret key and session token handed out.
    var secrets: [String] { counters.value.withLock { $0.secrets } }

    init(moto: MotoProcess, account: String, lifetime: Double, http: HTTPClient) throws {
        let counters = Counters()
        self.counters = counters
        let endpoint = moto.endpoint
        let role = "mustdo-relay"
        server = Server(
            configuration: ServerConfiguration(host: "127.0.0.7", port: 0, eventLoops: 1),
            responder: Responder(async: { request in
                let path = String(request.path)
                if request.method == .put, path == "/latest/api/token",
                    request.headers["x-aws-ec2-metadata-token-ttl-seconds"] == "21600"
                {
                    counters.value.withLock { $0.sessions += 1 }
                    return Response(body: Array("imds-session-token".utf8))
                }
                guard request.headers["x-aws-ec2-metadata-token"] == "imds-session-token" else {
                    return Response(status: HTTPStatus(code: 401, reason: "Unauthorized"))
                }
                if path == "/latest/meta-data/iam/security-credentials/" { return Response(body: Array(role.utf8)) }
                guard path == "/latest/meta-data/iam/security-credentials/\(role)",
                    let minted = try? await MotoProcess.assumeRole(account: account, endpoint: endpoint, http: http)
                else { return Response(status: HTTPStatus(code: 404, reason: "Not Found")) }
                counters.value.withLock {
                    $0.issued += 1
                    $0.secrets += [minted.secretAccessKey, minted.sessionToken ?? ""]
                }
                let document: JSONValue = [
                    "Code": "Success", "Type": "AWS-HMAC", "AccessKeyId": .string(minted.accessKeyID),
                    "SecretAccessKey": .string(minted.secretAccessKey), "Token": .string(minted.sessionToken ?? ""),
                    "Expiration": .string(ISO8601DateFormatter().string(from: Date(timeIntervalSinceNow: lifetime))),
                ]
                return Response(headers: ["Content-Type": "application/json"], body: document.bytes)
            }))
        try server.start()
    }

    deinit { server.shutdown() }
}
