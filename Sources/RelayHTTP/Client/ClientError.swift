/// Why an outbound request produced no response. Messages never contain the URL's query or any
/// header value, so they are safe to log even when the URL carries a token.
package enum ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request cannot be sent as given (bad URL, unsupported scheme, bad option).
    case invalidRequest(String)
    /// The connect or total timeout passed.
    case timedOut
    /// The host could not be resolved or no connection could be made.
    case connectFailed(String)
    /// The address policy refused the address the host resolved to.
    case addressRefused
    /// The TLS handshake failed or the server's certificate did not verify.
    case tls(String)
    /// The response was larger than the limit.
    case responseTooLarge(limit: Int)
    /// The calling task was cancelled; the transfer was aborted.
    case cancelled
    /// The client was shut down before the exchange finished.
    case shutDown
    /// Any other transport failure (connection reset, malformed response…).
    case transport(String)

    /// A summary safe to log.
    package var description: String {
        switch self {
        case .invalidRequest(let message): "invalid request: \(message)"
        case .timedOut: "timed out"
        case .connectFailed(let message): "connect failed: \(message)"
        case .addressRefused: "the address is not allowed by the address policy"
        case .tls(let message): "TLS failure: \(message)"
        case .responseTooLarge(let limit): "response larger than \(limit) bytes"
        case .cancelled: "cancelled"
        case .shutDown: "the HTTP client was shut down"
        case .transport(let message): "transport failure: \(message)"
        }
    }
}
