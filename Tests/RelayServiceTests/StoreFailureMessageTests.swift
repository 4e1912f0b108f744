import RelayAWS
import Testing

@testable import RelayService

/// What `serve --check-config` says about a DynamoDB table that did not answer is chosen by the AWS
/// error's kind (its typed `refusal`), never by searching the error's text.
struct StoreFailureMessageTests {
    private func message(_ error: AWSError, endpoint: String? = nil) -> String {
        Backends.dynamoDBFailure(error, table: "relay", region: "eu-west-1", endpoint: endpoint)
    }

    @Test func eachKindOfFailureGetsItsFix() {
        let missing = message(.service(type: "ResourceNotFoundException", status: 400))
        #expect(missing.hasPrefix("RELAY_DYNAMODB_TABLE: the table relay does not exist at https://dynamodb.eu-west-1"))
        for type in ["UnrecognizedClientException", "AccessDeniedException", "InvalidSignatureException"] {
            let refused = message(.service(type: type, status: 400))
            #expect(
                refused.hasPrefix("RELAY_DYNAMODB_TABLE: DynamoDB refused the credentials for table relay"), "\(type)")
        }
        let noCredentials = message(.credentials("no source gave credentials"))
        #expect(noCredentials.hasPrefix("RELAY_DYNAMODB_TABLE: cannot read table relay: AWS credentials:"))
        let down = message(.unavailable("connection refused"), endpoint: "http://127.0.0.1:1")
        #expect(down.hasPrefix("RELAY_DYNAMODB_TABLE: cannot reach table relay at http://127.0.0.1:1"))
    }

    @Test func aTypeNameInsideAReasonIsNotTakenForTheRefusal() {
        // The old substring match read this as a missing table.
        let down = message(.unavailable("proxy said ResourceNotFoundException"))
        #expect(down.hasPrefix("RELAY_DYNAMODB_TABLE: cannot reach table relay"))
        let other = message(.service(type: "ValidationException", status: 400))
        #expect(other.hasPrefix("RELAY_DYNAMODB_TABLE: cannot reach table relay"))
    }
}
