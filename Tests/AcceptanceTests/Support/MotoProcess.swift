import Foundation
import RelayHTTP
import RelayJSON
import RelayTestSupport

@testable import RelayAWS

/// moto (DynamoDB and KMS) for the relay, through the same serial wrapper RelayAWSTests uses (one
/// request at a time, so conditional writes are atomic as in DynamoDB), behind a TCP forwarder the
/// tests can kill and restart: the relay then sees AWS refuse connections while moto keeps its
/// table and key.
final class MotoProcess: @unchecked Sendable {
    // @unchecked Sendable: `proxy` is replaced only by `stopProxy`/`startProxy`, which a test
    // calls from one task at a time.
    let moto: MotoServer
    var motoPort: Int { moto.port }
    /// The endpoint the relay is given (the forwarder).
    let endpoint: String
    let proxyPort: Int
    private var proxy: ChildProcess?
    /// The DynamoDB table and the KMS key made for the relay.
    let table = "mustdo-relay-acceptance"
    private(set) var keyID = ""
    let http: HTTPClient

    static let credentials = ["AWS_ACCESS_KEY_ID": "AKIDACCEPTANCE", "AWS_SECRET_ACCESS_KEY": "moto-secret-key"]

    /// Starts moto and makes the table and the key; with `roleAccount`, they are made with
    /// credentials of a role in that account (moto files resources under the account of the key
    /// that creates them), so only a relay holding that role's credentials finds them.
    init(http: HTTPClient, roleAccount: String? = nil) async throws {
        self.http = http
        moto = try await MotoServer()
        proxyPort = try freePort()
        endpoint = "http://127.0.0.1:\(proxyPort)"
        try await startProxy()
        let credentials =
            if let roleAccount {
                try await Self.assumeRole(account: roleAccount, endpoint: moto.endpoint, http: http)
            } else {
                try Self.awsCredentials
            }
        keyID = try await Self.makeTableAndKey(
            table, key: "acceptance key", endpoint: endpoint, credentials: credentials, http: http)
    }

    /// `credentials` as the test's own AWS calls use them.
    static var awsCredentials: AWSCredentials {
        get throws {
            try AWSCredentials(
                accessKeyID: credentials["AWS_ACCESS_KEY_ID"]!, secretAccessKey: credentials["AWS_SECRET_ACCESS_KEY"]!)
        }
    }

    /// Makes the DynamoDB table `table` and a KMS key described as `key` at `endpoint`; returns the key's ID.
    static func makeTableAndKey(
        _ table: String, key: String, endpoint: String, credentials: AWSCredentials, http: HTTPClient
    ) async throws -> String {
        let configuration = AWSConfiguration(
            region: "us-east-1", credentials: credentials, endpoint: endpoint, requestTimeout: .seconds(30))
        let store = try DynamoDBStore(tableName: table, configuration: configuration, httpClient: http)
        try await store.createTable()
        let kms = try AWSJSONClient(
            service: "kms", http: http, configuration: configuration, contentType: "application/x-amz-json-1.1",
            targetPrefix: "TrentService")
        let created = try await kms.call("CreateKey", ["Description": .string(key)])
        guard let id = created["KeyMetadata"]?["KeyId"]?.stringValue else { throw AcceptanceFailure("no KMS key") }
        return id
    }

    /// The ARN of the role the relay assumes in `account`.
    static func roleARN(account: String) -> String { "arn:aws:iam::\(account):role/mustdo-relay" }

    /// Credentials of the relay's role in `account` from moto's STS (`AssumeRoleWithWebIdentity`;
    /// moto accepts any token).
    static func assumeRole(account: String, endpoint: String, http: HTTPClient) async throws -> AWSCredentials {
        let form =
            "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleSessionName=acceptance"
            + "&RoleArn=\(roleARN(account: account))&WebIdentityToken=acceptance.token.jwt"
        let response = try await http.send(
            ClientRequest(
                method: .post, url: endpoint + "/", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(form.utf8)))
        guard response.status == 200 else { throw AcceptanceFailure("moto STS: \(response.status) \(response.text)") }
        return try WebIdentityCredentialSource.credentials(response.body)
    }

    /// The relay settings for this moto: DynamoDB store and KMS key service.
    var relaySettings: [String: String] {
        [
            "RELAY_STORE": "dynamodb", "RELAY_DYNAMODB_TABLE": table, "RELAY_DYNAMODB_ENDPOINT": endpoint,
            "RELAY_KEY_SERVICE": "aws-kms", "RELAY_KMS_KEY_ID": keyID, "RELAY_KMS_ENDPOINT": endpoint,
            "RELAY_AWS_REGION": "us-east-1",
        ]
    }

    /// Starts the forwarder on `proxyPort` and waits until it accepts.
    func startProxy() async throws {
        let script = ChildProcess.repository.appendingPathComponent("Tests/AcceptanceTests/python/tcp_proxy.py")
        let child = try ChildProcess(
            executable: "/usr/bin/env", ["python3", script.path, String(proxyPort), String(motoPort)])
        _ = try await child.waitForOutput(matching: "proxy listening")
        proxy = child
    }

    /// Kills the forwarder: new connections are refused, open ones reset.
    func stopProxy() async throws {
        try await proxy?.kill9()
        proxy = nil
    }
}
