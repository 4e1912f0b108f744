/// One outbound request for `HTTPClient`. Settings left nil take the client's defaults.
package struct ClientRequest: Sendable {
    /// The method; GET and HEAD send no body.
    package var method: HTTPMethod
    /// An absolute `http` or `https` URL, already percent-encoded as it should go on the wire.
    package var url: String
    /// Extra header fields. `Host`, `Content-Length` and `Accept-Encoding` are set by the client.
    package var headers: HTTPHeaders
    /// The body (sent for any method but GET and HEAD, even when empty).
    package var body: [UInt8]
    /// Longest time to establish the connection, TLS included.
    package var connectTimeout: Duration?
    /// Longest time for the whole exchange, connect included.
    package var timeout: Duration?
    /// Largest accepted response (decoded body plus header bytes); more fails with `responseTooLarge`.
    package var maxResponseBytes: Int?
    /// Connect to this address instead of resolving the URL's host (TLS still verifies the host
    /// name). Used after an SSRF check resolved and approved the address. Forces a fresh connection.
    package var pinnedAddress: IPAddress?
    /// Which addresses the connection may reach; checked on the address actually connected to.
    package var addressPolicy: AddressPolicy?

    /// A request.
    package init(
        method: HTTPMethod = .get,
        url: String,
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        connectTimeout: Duration? = nil,
        timeout: Duration? = nil,
        maxResponseBytes: Int? = nil,
        pinnedAddress: IPAddress? = nil,
        addressPolicy: AddressPolicy? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.pinnedAddress = pinnedAddress
        self.addressPolicy = addressPolicy
    }
}

/// Which peer addresses an outbound connection may use.
package enum AddressPolicy: Sendable, Equatable {
    /// Any address (configured upstreams such as CloudKit, AWS, or an emulator on loopback).
    case any
    /// Only globally routable unicast addresses: no loopback, private, link-local, CGNAT,
    /// multicast, documentation or other special-purpose ranges (for URLs a client supplied).
    case publicOnly
}
