/// A complete request as handlers see it.
package struct Request: Sendable {
    /// The method token.
    package var method: HTTPMethod
    /// The request-target as sent: path and optional query.
    package var target: String
    /// HTTP/1.0 or HTTP/1.1.
    package var version: HTTPVersion
    /// Header fields, names lowercased.
    package var headers: HTTPHeaders
    /// The decoded body.
    package var body: [UInt8]
    /// Where the request came from, after the trusted-proxy rules.
    package var origin: RequestOrigin
    /// Values captured by `:name` segments of the matched route.
    package var parameters: [String: String] = [:]
    /// True when the server read this request's body without keeping it (`body` is empty) because
    /// `ServerConfiguration.lowPriority` named the request at its head: a request the app had
    /// already decided to refuse.
    package var bodyDropped = false

    /// A request; tests build these directly.
    package init(
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
    package var path: Substring {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target[...] }
        return target[..<mark]
    }

    /// The raw query string after `?`, or nil when there is none.
    package var rawQuery: Substring? {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return target[target.utf8.index(after: mark)...]
    }
}

/// The request's scheme, host and client address. Set from `X-Forwarded-*` only when the peer is a
/// configured trusted proxy. Addresses are kept for rate limiting and never logged.
package struct RequestOrigin: Sendable, Equatable {
    /// The TCP peer.
    package var peer: IPAddress?
    /// The client: the peer, or the forwarded client when the peer is a trusted proxy.
    package var client: IPAddress?
    /// `http` or `https`.
    package var scheme: String
    /// Host (and port) the client addressed, from `Host` or a trusted `X-Forwarded-Host`.
    package var host: String?

    /// An origin; all fields optional for tests.
    package init(peer: IPAddress? = nil, client: IPAddress? = nil, scheme: String = "http", host: String? = nil) {
        self.peer = peer
        self.client = client ?? peer
        self.scheme = scheme
        self.host = host
    }
}
