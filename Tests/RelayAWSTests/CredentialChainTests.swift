import Foundation
import RelayHTTP
import RelayStore
import RelaySync
import RelayTestSupport
import Testing

@testable import RelayAWS

/// The chain's order and its refusals, with every source really there at once: keys in the
/// environment, STS on moto, a profile file, the container endpoint and IMDS on loopback servers.
@Suite(.serialized)
struct CredentialChainTests {
    let clock = ManualClock(start: Date().timeIntervalSince1970)
    let http = AWSTestSupport.httpClient
    /// A moto of their own: the shared one is busy with the conformance suites, and STS answers
    /// within the relay's 5-second bound only when moto is not queueing behind them.
    static let moto = SharedMoto()

    func resolve(_ environment: [String: String], home: String? = nil) throws -> (
        AWSCredentialSourceKind, any AWSCredentialsProvider
    ) {
        try AWSCredentialChain.resolve(
            environment: environment, http: http,
            options: AWSCredentialChain.Options(region: "us-east-1", homeDirectory: home, clock: clock))
    }

    @Test func environmentWinsOverWebIdentityOverProfileOverContainerOverInstanceMetadata() async throws {
        let moto = try await Self.moto.server()
        let ecs = try FakeContainerEndpoint(clock: clock)
        let imds = try FakeInstanceMetadata(clock: clock)
        let directory = try temporaryDirectory(prefix: "relay-aws").path
        try "header.payload.signature".write(toFile: directory + "/token", atomically: true, encoding: .utf8)
        let credentialsFile = directory + "/credentials"
        try "[default]\naws_access_key_id = AKIAPROFILE\naws_secret_access_key = profile-secret\n".write(
            toFile: credentialsFile, atomically: true, encoding: .utf8)
        chmod(credentialsFile, 0o600)
        var environment = [
            "AWS_ACCESS_KEY_ID": "AKIAENVIRONMENT", "AWS_SECRET_ACCESS_KEY": "environment-secret",
            "AWS_WEB_IDENTITY_TOKEN_FILE": directory + "/token",
            "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/relay", "AWS_ENDPOINT_URL_STS": moto.endpoint,
            "AWS_SHARED_CREDENTIALS_FILE": credentialsFile,
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": ecs.url, "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.base,
        ]
        var seen: [(AWSCredentialSourceKind, String)] = []
        for remove in [
            ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"], ["AWS_WEB_IDENTITY_TOKEN_FILE"],
            ["AWS_SHARED_CREDENTIALS_FILE"], ["AWS_CONTAINER_CREDENTIALS_FULL_URI"], [],
        ] {
            let (kind, provider) = try resolve(environment)
            seen.append((kind, try await provider.credentials().accessKeyID))
            for name in remove { environment[name] = "" }  // empty counts as unset, as in the SDKs
        }
        #expect(seen.map(\.0) == [.environment, .webIdentity, .profile, .container, .instanceMetadata])
        #expect(seen[0].1 == "AKIAENVIRONMENT")
        #expect(seen[1].1.hasPrefix("ASIA"), "moto's STS issued the web identity credentials")
        #expect(seen[2].1 == "AKIAPROFILE")
        #expect(seen[3].1 == "ASIAECS00001")
        #expect(seen[4].1 == "ASIAIMDS0001")
        // Each later source was asked only once it was the first one configured.
        #expect(ecs.issuer.fetches == 1 && imds.issuer.fetches == 1)
    }

    @Test func aSourceConfiguredWronglyIsAnErrorNotAFallThrough() throws {
        let directory = try temporaryDirectory(prefix: "relay-aws").path
        let cases: [([String: String], String)] = [
            (["AWS_ACCESS_KEY_ID": "AKIAONLY"], "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must both be set"),
            (["AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/token"], "AWS_ROLE_ARN is not"),
            (
                ["AWS_WEB_IDENTITY_TOKEN_FILE": "/t", "AWS_ROLE_ARN": "relay"],
                "AWS_ROLE_ARN must be a role ARN"
            ),
            (
                [
                    "AWS_WEB_IDENTITY_TOKEN_FILE": "/t", "AWS_ROLE_ARN": "arn:aws:iam::1:role/r",
                    "AWS_ROLE_SESSION_NAME": "a b",
                ],
                "AWS_ROLE_SESSION_NAME"
            ),
            (["AWS_PROFILE": "relay", "AWS_CONFIG_FILE": directory + "/none"], "no profile relay"),
            (["AWS_SHARED_CREDENTIALS_FILE": directory + "/missing"], "does not exist"),
            (["AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://192.0.2.1/creds"], "plain http is allowed only"),
            (["AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE": "IPv5"], "IPv4 or IPv6"),
            (["AWS_EC2_METADATA_DISABLED": "TRUE"], "AWS_EC2_METADATA_DISABLED"),
        ]
        for (environment, fragment) in cases {
            do {
                _ = try resolve(environment)
                Issue.record("\(environment) was accepted")
            } catch {
                #expect("\(error)".contains(fragment), "\(error)")
            }
        }
    }

    @Test func profilesGiveKeysFromPrivateFilesOnly() throws {
        let home = try temporaryDirectory(prefix: "relay-aws").path
        try FileManager.default.createDirectory(atPath: home + "/.aws", withIntermediateDirectories: true)
        let config = home + "/.aws/config"
        try """
        [default]
        region = eu-west-1
        [profile relay]
        aws_access_key_id = AKIACONFIG
        aws_secret_access_key = config-secret
        aws_session_token = config-token
        [profile sso]
        sso_session = corp
        [profile half]
        aws_access_key_id = AKIAHALF
        """.write(toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o600)
        // The default profile has no keys: the chain goes on (to IMDS here).
        #expect(try resolve([:], home: home).0 == .instanceMetadata)
        let (kind, provider) = try resolve(["AWS_PROFILE": "relay"], home: home)
        #expect(kind == .profile)
        let keys = try #require((provider as? StaticCredentialsProvider)?.value)
        #expect(keys.accessKeyID == "AKIACONFIG" && keys.sessionToken == "config-token")
        #expect(throws: AWSError.self) { try resolve(["AWS_PROFILE": "sso"], home: home) }
        do {
            _ = try resolve(["AWS_PROFILE": "sso"], home: home)
        } catch {
            #expect("\(error)".contains("sso_session, which the relay does not implement"))
        }
        #expect(throws: AWSError.self) { try resolve(["AWS_PROFILE": "half"], home: home) }
        // Keys readable by others are refused, with the fix.
        chmod(config, 0o644)
        do {
            _ = try resolve(["AWS_PROFILE": "relay"], home: home)
            Issue.record("a world-readable key file was accepted")
        } catch {
            #expect("\(error)".contains("chmod 600 \(config)"), "\(error)")
            #expect(!"\(error)".contains("config-secret"))
        }
    }

    @Test func webIdentityOnMotoAndTheTokenIsReadOnEveryFetch() async throws {
        let sts = FakeSTS()
        let endpoint = try FakeHTTPEndpoint(host: "127.0.0.5") { request in await sts.answer(request) }
        let directory = try temporaryDirectory(prefix: "relay-aws").path
        let tokenFile = directory + "/token"
        try "first.jwt.token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let (_, provider) = try resolve([
            "AWS_WEB_IDENTITY_TOKEN_FILE": tokenFile, "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/relay",
            "AWS_ROLE_SESSION_NAME": "relay-test", "AWS_ENDPOINT_URL_STS": endpoint.base,
        ])
        let first = try await provider.credentials()
        #expect(first.accessKeyID == "ASIASTS1" && first.sessionToken?.hasSuffix("&/+=") == true)
        let expiration = try #require(first.expiration)
        #expect(
            (3500...3700).contains(expiration - clock.now()) && expiration.truncatingRemainder(dividingBy: 1) == 0.5)
        try "second.jwt.token".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let source = try #require((provider as? RefreshingCredentialsProvider)?.source)
        _ = try await source.fetch()
        let forms = sts.forms
        #expect(forms.map { $0["WebIdentityToken"] } == ["first.jwt.token", "second.jwt.token"])
        #expect(forms[0]["Action"] == "AssumeRoleWithWebIdentity" && forms[0]["Version"] == "2011-06-15")
        #expect(forms[0]["RoleArn"] == "arn:aws:iam::123456789012:role/relay")
        #expect(forms[0]["RoleSessionName"] == "relay-test")
        #expect(sts.signed == [false, false], "the call is unsigned: the token is the proof")

        // STS refusing the token: its code in the error, never the token.
        sts.refuse(with: "InvalidIdentityToken", status: 400)
        do {
            _ = try await source.fetch()
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains("InvalidIdentityToken (HTTP 400)"))
            #expect(!"\(error)".contains("second.jwt.token"))
        }
        #expect(sts.forms.count == 3, "a refused token is not retried at once")
        // IDP trouble is retried (3 attempts), then reported.
        sts.refuse(with: "IDPCommunicationError", status: 400)
        await #expect(throws: AWSError.self) { try await source.fetch() }
        #expect(sts.forms.count == 6)
    }

    @Test func webIdentityAgainstMotosSTS() async throws {
        let moto = try await Self.moto.server()
        let directory = try temporaryDirectory(prefix: "relay-aws").path
        try "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJyZWxheSJ9.c2ln".write(
            toFile: directory + "/token", atomically: true, encoding: .utf8)
        let (_, provider) = try resolve([
            "AWS_WEB_IDENTITY_TOKEN_FILE": directory + "/token",
            "AWS_ROLE_ARN": "arn:aws:iam::111122223333:role/relay", "AWS_ENDPOINT_URL_STS": moto.endpoint,
        ])
        let credentials = try await provider.credentials()
        #expect(credentials.accessKeyID.hasPrefix("ASIA") && credentials.sessionToken != nil)
        let remaining = try #require(credentials.expiration) - Date().timeIntervalSince1970
        #expect((3500...3700).contains(remaining), "moto's default session: one hour")
        // moto files what these keys create under the role's account: proof they are STS's keys.
        let configuration = AWSConfiguration(
            region: "us-east-1", credentials: provider, endpoint: moto.endpoint, requestTimeout: .seconds(30))
        let table = "web-identity-\(UUID().uuidString.prefix(8))"
        let store = try DynamoDBStore(tableName: table, configuration: configuration, httpClient: http)
        #expect(try await store.createTable())
        let other = try DynamoDBStore(
            tableName: table, configuration: AWSTestSupport.configuration(endpoint: moto.endpoint), httpClient: http)
        let refused = await #expect(throws: StoreError.self, "the table is in the role's account, not the default one")
        {
            _ = try await other.get(.init(pk: "a", sk: "b"))
        }
        #expect(refused?.description.contains("ResourceNotFoundException") == true, "\(String(describing: refused))")
        _ = try await store.get(.init(pk: "a", sk: "b"))
    }
}

/// STS's query API on a loopback server: records each form, answers like STS (or with an error).
final class FakeSTS: Sendable {
    private let state = Locked<(forms: [[String: String]], signed: [Bool], refusal: (String, Int)?)>(([], [], nil))

    var forms: [[String: String]] { state.withLock { $0.forms } }
    var signed: [Bool] { state.withLock { $0.signed } }

    func refuse(with code: String, status: Int) { state.withLock { $0.refusal = (code, status) } }

    func answer(_ request: Request) async -> Response {
        var form: [String: String] = [:]
        for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            form[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        let (count, refusal) = state.withLock { state -> (Int, (String, Int)?) in
            state.forms.append(form)
            state.signed.append(request.headers["authorization"] != nil)
            return (state.forms.count, state.refusal)
        }
        if let (code, status) = refusal {
            let body = """
                <ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type>\
                <Code>\(code)</Code><Message>token \(form["WebIdentityToken"] ?? "") refused</Message></Error>\
                <RequestId>1</RequestId></ErrorResponse>
                """
            return Response(status: HTTPStatus(code: status, reason: "Refused"), body: Array(body.utf8))
        }
        let body = CredentialParsingTests.stsAnswer
            .replacingOccurrences(of: "ASgeIAIOSFODNN7EXAMPLE", with: "ASIASTS\(count)")
            .replacingOccurrences(
                of: "2026-12-01T20:58:45Z",
                with: FakeIssuer.iso8601(Date().timeIntervalSince1970 + 3600).replacingOccurrences(of: "Z", with: ".5Z")
            )
        return Response(headers: ["Content-Type": "text/xml"], body: Array(body.utf8))
    }
}
