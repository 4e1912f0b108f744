#if canImport(Glibc)
    import Glibc
#endif

/// Settings for `Server`.
package struct ServerConfiguration: Sendable {
    /// Address to listen on: an IPv4 or IPv6 literal, or `localhost`.
    package var host: String
    /// TCP port; 0 picks a free one (read it back from `Server.port`).
    package var port: Int
    /// Number of event loops (threads), each with its own listener; defaults to the core count.
    package var eventLoops: Int
    /// Parser limits: request line, head, field count, body.
    package var limits: HTTPParserLimits
    /// Time allowed from a request's first byte (a new connection's accept) to the end of its head.
    /// A total: bytes trickling in do not extend it.
    package var headerReadTimeout: Duration
    /// Longest pause allowed between body bytes.
    package var bodyIdleTimeout: Duration
    /// Time allowed from the end of a head to the end of its body, however the bytes arrive.
    package var bodyTimeout: Duration
    /// Slowest average body transfer accepted, in bytes per second since the head ended (0: none).
    /// After `bodyRateGrace` a body must have averaged at least this: the deadline is
    /// grace + received / rate, moved forward by every byte that arrives.
    package var bodyMinimumBytesPerSecond: Int
    /// How long a body may arrive at any pace before `bodyMinimumBytesPerSecond` applies.
    package var bodyRateGrace: Duration
    /// How long an idle keep-alive connection is kept.
    package var keepAliveTimeout: Duration
    /// Longest pause allowed while a response waits for the client to read.
    package var writeTimeout: Duration
    /// How long shutdown waits for in-flight requests.
    package var drainTimeout: Duration
    /// Connections beyond this get a short 503 and are closed. Keep it below the process's
    /// descriptor limit (with room for everything else the process opens), or the server runs out
    /// of descriptors before it can answer 503.
    package var maxConnections: Int
    /// Connections one client may hold at once (an IPv4 address, an IPv6 /64; see `AddressBlock`),
    /// counted at accept on the TCP peer. Beyond it a new connection gets the short 503. Peers in
    /// `trustedProxies` are not counted: every client behind them shares their address, so the
    /// proxy must limit its own clients. 0: no cap (the library's default; the relay sets one).
    package var maxConnectionsPerAddress: Int
    /// Listen backlog.
    package var backlog: Int
    /// Proxies whose `X-Forwarded-*` headers are believed.
    package var trustedProxies: TrustedProxies
    /// Told about every refused connection and timed-out request (for metrics). Called on a loop
    /// thread: it must be quick and must not block.
    package var onEvent: (@Sendable (ServerEvent) -> Void)?
    /// Names the requests the app already knows it will refuse cheaply (a client address over a
    /// limit), so that a flood of them cannot crowd out other clients. Asked once per request as
    /// soon as its head has arrived, with a `Request` that has no body yet (method, target,
    /// headers, origin). A request it names has its body read and dropped rather than kept
    /// (`Request.bodyDropped`), and is handed to the responder only after every other ready
    /// connection of its loop has been served, at most `lowPriorityPerRound` of them per loop per
    /// round (`Server`). Called on a loop thread for every request: it must be quick and must not
    /// block. nil: every request is served in arrival order.
    package var lowPriority: (@Sendable (Request) -> Bool)? = nil
    /// Low-priority requests one loop answers per round of its event loop (at least 1).
    package var lowPriorityPerRound = 16

    /// A configuration with the relay's defaults.
    package init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        eventLoops: Int = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))),
        limits: HTTPParserLimits = HTTPParserLimits(),
        headerReadTimeout: Duration = .seconds(10),
        bodyIdleTimeout: Duration = .seconds(10),
        bodyTimeout: Duration = .seconds(120),
        bodyMinimumBytesPerSecond: Int = 500,
        bodyRateGrace: Duration = .seconds(10),
        keepAliveTimeout: Duration = .seconds(60),
        writeTimeout: Duration = .seconds(30),
        drainTimeout: Duration = .seconds(30),
        maxConnections: Int = 20_000,
        maxConnectionsPerAddress: Int = 0,
        backlog: Int = 4096,
        trustedProxies: TrustedProxies = TrustedProxies(),
        onEvent: (@Sendable (ServerEvent) -> Void)? = nil
    ) {
        self.host = host
        self.port = port
        self.eventLoops = max(1, eventLoops)
        self.limits = limits
        self.headerReadTimeout = headerReadTimeout
        self.bodyIdleTimeout = bodyIdleTimeout
        self.bodyTimeout = bodyTimeout
        self.bodyMinimumBytesPerSecond = bodyMinimumBytesPerSecond
        self.bodyRateGrace = bodyRateGrace
        self.keepAliveTimeout = keepAliveTimeout
        self.writeTimeout = writeTimeout
        self.drainTimeout = drainTimeout
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.backlog = backlog
        self.trustedProxies = trustedProxies
        self.onEvent = onEvent
    }
}
