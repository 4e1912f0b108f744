/// One request for `H2Session.submit`: the four pseudo-header fields, the header fields and the
/// body. Field names are sent lower-case (RFC 9113 §8.2.1); connection-specific fields are
/// dropped (§8.2.2), and `content-length` is always the body's own length.
package struct H2Request: Sendable {
    /// `GET`, `POST`…
    package var method: String
    /// `https` or `http` (the origin's scheme, even though the session itself never sees TLS).
    package var scheme: String
    /// `host[:port]` as the URL has it (RFC 9113 §8.3.1: it replaces `Host`).
    package var authority: String
    /// The path and query, starting with `/`.
    package var path: String
    /// Header fields; names must be RFC 9110 tokens, values free of CR, LF and NUL.
    package var headers: HTTPHeaders
    /// The body (empty: none).
    package var body: [UInt8]
    /// This stream's response size limit (header bytes plus body); nil: the session's.
    package var maxResponseBytes: Int?

    /// A request.
    package init(
        method: String = "GET", scheme: String = "https", authority: String, path: String = "/",
        headers: HTTPHeaders = [:], body: [UInt8] = [], maxResponseBytes: Int? = nil
    ) {
        self.method = method
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.headers = headers
        self.body = body
        self.maxResponseBytes = maxResponseBytes
    }
}
