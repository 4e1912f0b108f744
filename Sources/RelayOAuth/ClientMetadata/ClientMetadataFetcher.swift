import RelayHTTP

/// Fetches client ID metadata documents. The implementation owns the SSRF rules: https only,
/// the host resolved once with every address public and the checked address pinned for the
/// connection, no redirects followed, the size and time limits enforced while reading.
package protocol ClientMetadataFetcher: Sendable {
    /// GETs `url`. Any transport failure (including a refused address, a timeout or a response over
    /// `maximumBytes`) throws; every HTTP status comes back as a response.
    func fetch(_ url: String, maximumBytes: Int, timeout: Duration) async throws -> FetchedDocument
}

/// A fetched document as the resolver judges it.
package struct FetchedDocument: Sendable {
    /// The HTTP status.
    package var status: Int
    /// The response headers (`Content-Type`, `Cache-Control`).
    package var headers: HTTPHeaders
    /// The body.
    package var body: [UInt8]

    /// A response.
    package init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
