#if canImport(Glibc)
    import Glibc
#endif

/// Settings for `Server`. Durations are in milliseconds.
public struct ServerConfiguration: Sendable {
    /// Address to listen on: an IPv4 or IPv6 literal, or `localhost`.
    public var host: String
    /// TCP port; 0 picks a free one (read it back from `Server.port`).
    public var port: Int
    /// Number of event loops (threads), each with its own listener; defaults to the core count.
    public var eventLoops: Int
    /// Parser limits: request line, head, field count, body.
    public var limits: HTTPParserLimits
    /// Time allowed from a request's first byte to the end of its head.
    public var headerReadTimeoutMilliseconds: Int
    /// Longest pause allowed between body bytes.
    public var bodyIdleTimeoutMilliseconds: Int
    /// How long an idle keep-alive connection is kept.
    public var keepAliveTimeoutMilliseconds: Int
    /// Longest pause allowed while a response waits for the client to read.
    public var writeTimeoutMilliseconds: Int
    /// How long shutdown waits for in-flight requests.
    public var drainTimeoutMilliseconds: Int
    /// Connections beyond this get a short 503 and are closed.
    public var maxConnections: Int
    /// Listen backlog.
    public var backlog: Int
    /// Proxies whose `X-Forwarded-*` headers are believed.
    public var trustedProxies: TrustedProxies

    /// A configuration with the relay's defaults.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        eventLoops: Int = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))),
        limits: HTTPParserLimits = HTTPParserLimits(),
        headerReadTimeoutMilliseconds: Int = 10_000,
        bodyIdleTimeoutMilliseconds: Int = 10_000,
        keepAliveTimeoutMilliseconds: Int = 60_000,
        writeTimeoutMilliseconds: Int = 30_000,
        drainTimeoutMilliseconds: Int = 30_000,
        maxConnections: Int = 20_000,
        backlog: Int = 4096,
        trustedProxies: TrustedProxies = TrustedProxies()
    ) {
        self.host = host
        self.port = port
        self.eventLoops = max(1, eventLoops)
        self.limits = limits
        self.headerReadTimeoutMilliseconds = headerReadTimeoutMilliseconds
        self.bodyIdleTimeoutMilliseconds = bodyIdleTimeoutMilliseconds
        self.keepAliveTimeoutMilliseconds = keepAliveTimeoutMilliseconds
        self.writeTimeoutMilliseconds = writeTimeoutMilliseconds
        self.drainTimeoutMilliseconds = drainTimeoutMilliseconds
        self.maxConnections = maxConnections
        self.backlog = backlog
        self.trustedProxies = trustedProxies
    }
}
