/// The request line and header fields of one request, validated.
package struct HTTPRequestHead: Sendable, Equatable {
    /// The method token.
    package var method: HTTPMethod
    /// The request-target exactly as sent (origin form: path and query).
    package var target: String
    /// HTTP/1.0 or HTTP/1.1.
    package var version: HTTPVersion
    /// Header fields with lowercased names, in order.
    package var headers: HTTPHeaders
    /// Whether the connection may carry another request after this one.
    package var keepAlive: Bool

    /// A head; `keepAlive` follows the version and the `Connection` header unless given.
    package init(
        method: HTTPMethod,
        target: String,
        version: HTTPVersion = .http11,
        headers: HTTPHeaders = [:],
        keepAlive: Bool? = nil
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.keepAlive =
            keepAlive
            ?? (version == .http11
                ? !headers.contains("connection", token: "close")
                : headers.contains("connection", token: "keep-alive"))
    }
}

/// How the body of a request is framed.
enum BodyFraming: Equatable {
    case none
    case length(Int)
    case chunked
}
