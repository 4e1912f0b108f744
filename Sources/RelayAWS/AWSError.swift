/// Every failure RelayAWS reports outside the `Store` and `KeyService` protocols (which have their
/// own errors): configuration, credentials, and calls to an AWS service. Messages carry an AWS
/// error type and HTTP status at most, never a credential, a signature or an item's values.
public enum AWSError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// A setting is missing or malformed (endpoint URL, region, table name, credentials).
    case configuration(String)
    /// The service refused the request with this error type (the part after `#` in `__type`).
    case service(type: String, status: Int)
    /// The service throttled every attempt up to the retry bound.
    case throttled(type: String)
    /// No usable answer: connection refused or reset, a timeout, a 5xx after every retry, or a
    /// response that is not the JSON the API defines.
    case unavailable(String)
    /// No usable credentials: none configured, a credential source that refused or did not answer,
    /// or a refresh that failed after the current ones ran out. The reason names the source and
    /// its variables, never a key, token or response body.
    case credentials(String)

    public var description: String {
        switch self {
        case .configuration(let reason): "AWS configuration: \(reason)"
        case .service(let type, let status): "AWS refused the request: \(type) (HTTP \(status))"
        case .throttled(let type): "AWS throttled the request: \(type)"
        case .unavailable(let reason): "AWS unavailable: \(reason)"
        case .credentials(let reason): "AWS credentials: \(reason)"
        }
    }
}
