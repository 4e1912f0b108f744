import Foundation
import RelayHTTP
import RelayJSON
import Testing

@testable import RelayAWS

/// The requests the relay really sends to DynamoDB and KMS, signed by `AWSJSONClient` and by
/// botocore's `SigV4Auth.add_auth` at the same instant: canonical request, string to sign and
/// every added header must agree byte for byte (moto never checks signatures, so this and the
/// published vectors are what prove them).
struct SigV4BotocoreTests {
    struct Shape: Sendable, CustomStringConvertible {
        let service: String
        let region: String
        let endpoint: String?
        let contentType: String
        let target: String
        let operation: String
        let body: JSONObject
        let sessionToken: String?

        var description: String {
            "\(service) \(operation)\(sessionToken == nil ? "" : " with session token") at \(endpoint ?? "AWS")"
        }
    }

    static let shapes: [Shape] = [
        Shape(
            service: "dynamodb", region: "eu-west-1", endpoint: nil, contentType: "application/x-amz-json-1.0",
            target: "DynamoDB_20120810", operation: "PutItem",
            body: [
                "TableName": "mustdo-relay",
                "Item": ["pk": ["S": "GRANT#é ✓"], "sk": ["S": "META"], "version": ["N": "1"]],
                "ConditionExpression": "(attribute_not_exists(pk) OR #e <= :now)",
                "ExpressionAttributeNames": ["#e": "expiresAt"],
                "ExpressionAttributeValues": [":now": ["N": "1800000000"]],
            ], sessionToken: nil),
        Shape(
            service: "dynamodb", region: "us-east-1", endpoint: "http://127.0.0.1:8000",
            contentType: "application/x-amz-json-1.0", target: "DynamoDB_20120810", operation: "Query",
            body: [
                "TableName": "relay", "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
                "ExpressionAttributeValues": [":pk": ["S": "USER#1"], ":prefix": ["S": "GRANT#"]], "Limit": 7,
            ], sessionToken: "FwoGZXIvYXdzEJr//////////wEaDM+session/token=="),
        Shape(
            service: "kms", region: "eu-central-1", endpoint: nil, contentType: "application/x-amz-json-1.1",
            target: "TrentService", operation: "GenerateDataKey",
            body: [
                "KeyId": "alias/mustdo-relay", "KeySpec": "AES_256",
                "EncryptionContext": [
                    "grantId": "g-1", "keyVersion": "1", "purpose": "cloudkit-web-auth-token", "userId": "u-1",
                ],
            ], sessionToken: "IQoJb3JpZ2luX2VjEXAMPLETOKEN"),
        Shape(
            service: "kms", region: "us-west-2", endpoint: "https://kms-fips.us-west-2.amazonaws.com:443",
            contentType: "application/x-amz-json-1.1", target: "TrentService", operation: "Decrypt",
            body: ["CiphertextBlob": "AQIDBAUGBwg=", "EncryptionContext": ["purpose": "p"]], sessionToken: nil),
    ]

    @Test(arguments: shapes)
    func matchesBotocore(_ shape: Shape) async throws {
        let credentials = try AWSCredentials(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            sessionToken: shape.sessionToken)
        let configuration = AWSConfiguration(region: shape.region, credentials: credentials, endpoint: shape.endpoint)
        let client = try AWSJSONClient(
            service: shape.service, http: AWSTestSupport.httpClient, configuration: configuration,
            contentType: shape.contentType, targetPrefix: shape.target)
        let payload = JSONValue.object(shape.body).bytes
        let epochSeconds = 1_767_225_600 + 3723  // 2026-01-01T01:02:03Z
        let request = client.signedRequest(
            shape.operation, payload, epochSeconds: epochSeconds, credentials: credentials)

        let sentHeaders = request.headers.fields.filter {
            ["content-type", "x-amz-target"].contains($0.name.lowercased())
        }
        let input: JSONValue = [
            "method": "POST", "url": .string(request.url),
            "headers": .array(sentHeaders.map { [.string($0.name), .string($0.value)] }),
            "body": .string(Data(payload).base64EncodedString()), "accessKeyID": "AKIAIOSFODNN7EXAMPLE",
            "secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "token": shape.sessionToken.map(JSONValue.string) ?? .null, "region": .string(shape.region),
            "service": .string(shape.service), "epochSeconds": .int(epochSeconds),
        ]
        let botocore = try JSONValue(parsing: try await runPythonScript("botocore_sign.py", input: input.bytes))

        let signature = client.signer(credentials).sign(
            SigV4Request(
                method: "POST",
                headers: [("Host", client.endpoint.host)] + sentHeaders.map { ($0.name, $0.value) }, body: payload),
            epochSeconds: epochSeconds)
        #expect(signature.canonicalRequest == botocore["canonicalRequest"]?.stringValue)
        #expect(signature.stringToSign == botocore["stringToSign"]?.stringValue)
        for name in ["Authorization", "X-Amz-Date", "X-Amz-Security-Token"] {
            #expect(request.headers[name] == botocore["headers"]?[name]?.stringValue, "\(name)")
        }
        #expect(
            request.headers["Authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/") == true)
    }
}
