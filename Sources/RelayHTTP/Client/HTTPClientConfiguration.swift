/// Settings for `HTTPClient`; requests may override the timeouts, size limit and address policy.
package struct HTTPClientConfiguration: Sendable {
    /// Default time allowed to establish a connection, TLS included.
    package var connectTimeout: Duration
    /// Default time allowed for a whole exchange.
    package var timeout: Duration
    /// Default response size limit in bytes (decoded body plus headers).
    package var maxResponseBytes: Int
    /// A PEM bundle of extra trust anchors (tests with their own CA). Verification is always on;
    /// without this file the system trust store is used.
    package var caFile: String?
    /// Default address policy.
    package var addressPolicy: AddressPolicy
    /// Idle connections kept for reuse, across hosts.
    package var maxIdleConnections: Int
    /// Connections per host at once for origins that do not multiplex (plain `http`, HTTP/1.1
    /// over TLS, pinned or policy-checked requests); 0 means no limit.
    package var maxConnectionsPerHost: Int
    /// Connections per host at once for an `https` origin that speaks HTTP/2: requests beyond
    /// `maxMultiplexedConnectionsPerHost` × `maxStreamsPerConnection` in flight wait for a free
    /// stream instead of opening more connections (each a TLS handshake, and a socket and TLS
    /// state on both ends).
    package var maxMultiplexedConnectionsPerHost: Int
    /// Concurrent HTTP/2 streams per connection at most (the server's own limit applies too).
    package var maxStreamsPerConnection: Int
    /// The `User-Agent` header.
    package var userAgent: String
    /// An explicit proxy URL. Nil means no proxy: `http_proxy` and friends in the environment are
    /// ignored so upstream traffic goes where the configuration says.
    package var proxy: String?
    /// A configuration with the relay's defaults (connect 5 s, total 15 s, 8 MiB; an HTTP/2
    /// origin gets at most 8 connections of 128 streams).
    package init(
        connectTimeout: Duration = .seconds(5),
        timeout: Duration = .seconds(15),
        maxResponseBytes: Int = 8 << 20,
        caFile: String? = nil,
        addressPolicy: AddressPolicy = .any,
        maxIdleConnections: Int = 256,
        maxConnectionsPerHost: Int = 0,
        maxMultiplexedConnectionsPerHost: Int = 8,
        maxStreamsPerConnection: Int = 128,
        userAgent: String = "MustDoRelay/1",
        proxy: String? = nil
    ) {
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.caFile = caFile
        self.addressPolicy = addressPolicy
        self.maxIdleConnections = maxIdleConnections
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxMultiplexedConnectionsPerHost = maxMultiplexedConnectionsPerHost
        self.maxStreamsPerConnection = maxStreamsPerConnection
        self.userAgent = userAgent
        self.proxy = proxy
    }
}
