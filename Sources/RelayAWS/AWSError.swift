/// Every failure RelayAWS reports outside the `Store` and `KeyService` protocols (which have their
/// own errors): configuration, credentials, and calls to an AWS service. Messages carry an AWS
/// error type and HTTP status at most, never a credential, a signature or an item's values.
package enum AWSError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// A setting is missing or malformed (endpoint URL, region, table name, credentials).
    case configuration(String)
    /// The service refused the request with this error type (the part after `#` in `__type`).
    case service(type: String, status: Int)
    /// DynamoDB cancelled a `TransactWriteItems`: the `Code` of each action's cancellation reason,
    /// in the request's order (`None` for an action that was fine, `ConditionalCheckFailed`,
    /// `TransactionConflict`, …). Nothing of the transaction was written.
    case transactionCanceled(reasons: [String])
    /// The service throttled every attempt up to the retry bound.
    case throttled(type: String)
    /// No usable answer: connection refused or reset, a timeout, a 5xx after every retry, or a
    /// response that is not the JSON the API defines.
    case unavailable(String)
    /// No usable credentials: none configured, a credential source that refused or did not answer,
    /// or a refresh that failed after the current ones ran out. The reason names the source and
    /// its variables, never a key, token or response body.
    case credentials(String)

    package var description: String {
        switch self {
        case .configuration(let reason): "AWS configuration: \(reason)"
        case .service(let type, let status): "AWS refused the request: \(type) (HTTP \(status))"
        case .transactionCanceled(let reasons):
            "AWS cancelled the transaction: \(reasons.joined(separator: ", "))"
        case .throttled(let type): "AWS throttled the request: \(type)"
        case .unavailable(let reason): "AWS unavailable: \(reason)"
        case .credentials(let reason): "AWS credentials: \(reason)"
        }
    }
}

extension AWSError {
    /// The kinds of refusal a caller acts on (a start-up message that says what to fix). AWS names
    /// them only as error-type strings; they are read once, here, so no caller matches error text.
    package enum Refusal: Equatable, Sendable {
        /// The table, key or other resource named does not exist.
        case resourceNotFound
        /// The credentials were not accepted: an unknown key, a bad signature, an expired token.
        case credentialsRejected
        /// The credentials are valid but not allowed to do this.
        case accessDenied
    }

    /// What kind of refusal this is; nil for every other failure and for refusals of other types.
    package var refusal: Refusal? {
        guard case .service(let type, _) = self else { return nil }
        switch type {
        case "ResourceNotFoundException", "NotFoundException":
            return .resourceNotFound
        case "UnrecognizedClientException", "InvalidSignatureException", "IncompleteSignatureException",
            "MissingAuthenticationTokenException", "ExpiredTokenException", "InvalidClientTokenId":
            return .credentialsRejected
        case "AccessDeniedException":
            return .accessDenied
        default:
            return nil
        }
    }
}
