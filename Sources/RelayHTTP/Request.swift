/// A complete request as handlers see it.
public struct Request: Sendable {
    /// The method token.
    public var method: HTTPMethod
    /// The request-target as sent: path and optional query.
    public var target: String
    /// HTTP/1.0 or HTTP/1.1.
    public var version: HTTPVersion
    /// Header fields, names lowercased.
    public var headers: HTTPHeaders
    /// The decoded body.
    public var body: [UInt8]
    /// Where the request came from, after the trusted-proxy rules.
    public var origin: RequestOrigin
    /// Values captured by `:name` segments of the matched route.
    public var parameters: [String: String] = [:]
    /// True when the server read this request's body without keeping it (`body` is empty) because
    /// `ServerConfiguration.lowPriority` named the request at its head: a request the app had
    /// already decided to refuse.
    public var bodyDropped = false

    /// A request; tests build these directly.
    public init(
        method: HTTPMethod,
        target: String,
        version: HTTPVersion = .http11,
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        origin: RequestOrigin = RequestOrigin()
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.origin = origin
    }

    /// The path part of the target, still percent-encoded.
    public var path: Substring {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target[...] }
        return target[..<mark]
    }

    /// The raw query string after `?`, or nil when there is none.
    public var rawQuery: Substring? {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return target[target.utf8.index(after: mark)...]
    }
}

/// The request's scheme, host and client address. Set from `X-Forwarded-*` only when the peer is a
/// configured trusted proxy. Addresses are kept for rate limiting and never logged.
public struct RequestOrigin: Sendable, Equatable {
    /// The TCP peer.
    public var peer: IPAddress?
    /// The client: the peer, or the forwarded client when the peer is a trusted proxy.
    public var client: IPAddress?
    /// `http` or `https`.
    public var scheme: String
    /// Host (and port) the client addressed, from `Host` or a trusted `X-Forwarded-Host`.
    public var host: String?

    /// An origin; all fields optional for tests.
    public init(peer: IPAddress? = nil, client: IPAddress? = nil, scheme: String = "http", host: String? = nil) {
        self.peer = peer
        self.client = client ?? peer
        self.scheme = scheme
        self.host = host
    }
}
