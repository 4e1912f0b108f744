import RelayAWS
import Testing

/// AWS names its refusals only by error type; `refusal` reads the ones callers act on, once.
struct AWSErrorRefusalTests {
    @Test func theRefusalsCallersActOnAreTyped() {
        let cases: [(String, AWSError.Refusal?)] = [
            ("ResourceNotFoundException", .resourceNotFound), ("NotFoundException", .resourceNotFound),
            ("UnrecognizedClientException", .credentialsRejected), ("InvalidSignatureException", .credentialsRejected),
            ("ExpiredTokenException", .credentialsRejected), ("AccessDeniedException", .accessDenied),
            ("ValidationException", nil), ("ProvisionedThroughputExceededException", nil),
        ]
        for (type, refusal) in cases {
            #expect(AWSError.service(type: type, status: 400).refusal == refusal, "\(type)")
        }
    }

    @Test func failuresThatAreNotRefusalsHaveNone() {
        // A type name in a reason is text, not a refusal: nothing is read from messages.
        for error in [
            AWSError.unavailable("ResourceNotFoundException"), .credentials("AccessDeniedException"),
            .throttled(type: "ResourceNotFoundException"), .configuration("UnrecognizedClientException"),
        ] {
            #expect(error.refusal == nil, "\(error)")
        }
    }
}
