/// The request line and header fields of one request, validated.
public struct HTTPRequestHead: Sendable, Equatable {
    /// The method token.
    public var method: HTTPMethod
    /// The request-target exactly as sent (origin form: path and query).
    public var target: String
    /// HTTP/1.0 or HTTP/1.1.
    public var version: HTTPVersion
    /// Header fields with lowercased names, in order.
    public var headers: HTTPHeaders
    /// Whether the connection may carry another request after this one.
    public var keepAlive: Bool

    /// A head; `keepAlive` follows the version and the `Connection` header unless given.
    public init(
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
