import RelayHTTP

/// Fetches client metadata documents with the relay's libcurl client, under the SSRF rules:
/// `AddressPolicy.publicOnly` checks the exact address of every connection attempt (so DNS
/// rebinding, a second A record or an IPv4-mapped literal cannot reach a private address), 3xx
/// answers are never followed, and the time and size limits apply while reading. The document
/// URL is https (checked before any fetch by `ClientMetadataPolicy.isDocumentURL`).
package struct HTTPClientMetadataFetcher: ClientMetadataFetcher {
    private let client: HTTPClient
    private let allowsLoopback: Bool

    /// A fetcher over `client`. `allowsLoopback` lifts the public-address rule, for tests that
    /// serve documents on 127.0.0.1 (pair it with `OAuthConfiguration.allowsLoopbackMetadataDocuments`).
    package init(client: HTTPClient, allowsLoopback: Bool = false) {
        self.client = client
        self.allowsLoopback = allowsLoopback
    }

    package func fetch(_ url: String, maximumBytes: Int, timeout: Duration) async throws -> FetchedDocument {
        let request = ClientRequest(
            url: url, headers: ["Accept": "application/json"], connectTimeout: timeout, timeout: timeout,
            // The limit counts header bytes too; the body's own limit is checked by the policy.
            maxResponseBytes: maximumBytes + 8192, addressPolicy: allowsLoopback ? .any : .publicOnly)
        let response = try await client.send(request)
        return FetchedDocument(status: response.status, headers: response.headers, body: response.body)
    }
}
