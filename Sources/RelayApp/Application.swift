import RelayHTTP

/// The assembled relay: its router, its server, the metrics listener, the logger. `mustdo-relay`
/// and the tests build it the same way, through `buildApplication(_:)`.
public struct Application: Sendable {
    /// The configuration it was built from.
    public let configuration: Configuration
    /// Every public route.
    public let router: Router
    /// The HTTP server answering with `router`.
    public let server: Server
    /// The separate listener for `/metrics`, when configured.
    public let metricsServer: Server?
    /// Where logs go.
    public let logger: Logger
    /// Every metric.
    public let metrics: Metrics

    /// Starts listening; returns once connections are accepted.
    public func start() throws {
        try server.start()
        do {
            try metricsServer?.start()
        } catch {
            server.shutdown()
            throw error
        }
    }

    /// Stops accepting and drains in-flight requests (returns at once; see `waitUntilStopped`).
    public func shutdown() {
        server.shutdown()
        metricsServer?.shutdown()
    }

    /// Waits until both listeners have stopped, then flushes the log.
    public func waitUntilStopped() async {
        await server.waitUntilStopped()
        metricsServer?.shutdown()
        await metricsServer?.waitUntilStopped()
    }
}

/// Builds the relay from its configuration. The one place where parts are wired together.
public func buildApplication(_ configuration: Configuration, logger: Logger? = nil) -> Application {
    let logger = logger ?? Logger(minimumLevel: configuration.logLevel)
    let metrics = Metrics()
    RequestObserver.declare(metrics)

    var router = Router(onError: { error, _ in
        var event = LogEvent(.error, "http.unhandled_error")
        event.outcome = StaticOrRoute(errorType: error)
        logger.log(event)
    })
    let healthy = Response.text("ok")
    router.get("/healthz", immediate: { _ in healthy })

    let observer = RequestObserver(logger: logger, metrics: metrics, router: router)
    let server = Server(configuration: configuration.server, responder: observer.responder)
    metrics.declareGauge("relay_http_open_connections", help: "Open client connections.") {
        Double(server.openConnections)
    }
    var metricsServer: Server?
    if let metricsPort = configuration.metricsPort {
        var metricsRouter = Router()
        metricsRouter.get("/metrics") { _ in
            Response(
                status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Array(metrics.render().utf8))
        }
        metricsServer = Server(
            configuration: ServerConfiguration(host: configuration.metricsHost, port: metricsPort, eventLoops: 1),
            responder: metricsRouter.responder)
    }
    return Application(
        configuration: configuration, router: router, server: server, metricsServer: metricsServer, logger: logger,
        metrics: metrics)
}
