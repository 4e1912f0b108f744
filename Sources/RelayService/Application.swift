import RelayHTTP
import RelayMCP
import RelayOAuth
import RelayStore
import RelaySync
import RelayTodo

/// The assembled relay: its router, its server, the metrics listener, the logger. `mustdo-relay`
/// and the tests build it the same way, through `buildApplication(_:backends:)`.
package struct Application: Sendable {
    /// The configuration it was built from.
    package let configuration: Configuration
    /// The opened backends.
    package let backends: Backends
    /// The authorization server.
    package let oauth: AuthorizationServer
    /// The HTTP server answering every public route.
    package let server: Server
    /// The separate listener for `/metrics`, when configured.
    package let metricsServer: Server?
    /// Where logs go.
    package let logger: Logger
    /// Every metric.
    package let metrics: Metrics
    /// Counts active grants in the background, when configured.
    let grantsGauge: GrantsGauge?
    /// Gives free heap memory back to the system after bursts.
    let memoryTrimmer: MemoryTrimmer
    /// Checks the CloudKit API token (at start, after a 401, for `/readyz`).
    let credentials: APITokenMonitor
    /// One CloudKit call per grant; it also runs the rotated-token saves left after each answer.
    let serializer: GrantSerializer
    /// Writes rotated CloudKit tokens a store outage left in memory as soon as the store answers.
    let unsavedRotations: UnsavedRotations

    /// Starts listening; returns once connections are accepted.
    package func start() throws {
        try server.start()
        do {
            try metricsServer?.start()
        } catch {
            server.shutdown()
            throw error
        }
        grantsGauge?.start()
        memoryTrimmer.start()
        unsavedRotations.start()
        // One check at start: a mistyped API token file shows in the log and on /readyz at once,
        // not at the first person's tool call.
        Task { [credentials] in _ = await credentials.refresh() }
    }

    /// Stops accepting and drains in-flight requests (returns at once; see `waitUntilStopped`).
    package func shutdown() {
        grantsGauge?.stop()
        memoryTrimmer.stop()
        server.shutdown()
        metricsServer?.shutdown()
    }

    /// Waits until both listeners have stopped and every rotated CloudKit token whose call was
    /// answered has been saved: a save runs after its answer (`GrantSession`), so a drained server
    /// may still have saves in flight, and the process must not exit before they land.
    package func waitUntilStopped() async {
        await server.waitUntilStopped()
        // Every drained request has been answered, so its save has started; it lands here.
        await serializer.remaindersFinished()
        // A token the store did not take yet is lost with the process: one last try, then say so.
        unsavedRotations.stop()
        let unsaved = await unsavedRotations.writeAll()
        if unsaved > 0 {
            var event = LogEvent(.error, "store.rotation_lost_at_stop")
            event.count = unsaved
            logger.log(event)
        }
        metricsServer?.shutdown()
        await metricsServer?.waitUntilStopped()
    }

    /// Opens the backends the configuration names, then builds the relay.
    package static func open(_ configuration: Configuration, logger: Logger? = nil) async throws -> Application {
        // Made here rather than in buildApplication so that opening the backends can log (AWS credentials).
        let logger = logger ?? Logger(minimumLevel: configuration.logLevel)
        let backends = try await Backends.open(configuration, logger: logger)
        return try buildApplication(configuration, backends: backends, logger: logger)
    }
}

/// Builds the relay from its configuration and opened backends: the one place where the parts are
/// wired together.
package func buildApplication(
    _ configuration: Configuration, backends: Backends, logger: Logger? = nil, clock: any WallClock = SystemClock()
) throws -> Application {
    let logger = logger ?? Logger(minimumLevel: configuration.logLevel)
    let metrics = backends.metrics
    let upstream = UpstreamObserver(logger: logger, metrics: metrics)
    let credentials = upstream.apiTokenMonitor(cloudKit: backends.cloudKit, clock: clock)
    let cache = BearerCache(ttl: configuration.oauth.validationCacheTTL, clock: clock)
    let states = GrantStates(clock: clock)
    let oauthEvents = OAuthEventObserver(
        logger: logger, metrics: metrics, cache: cache, states: states, vault: backends.vault)

    let oauth = AuthorizationServer(
        configuration: try configuration.oauthConfiguration(),
        store: backends.store,
        secrets: backends.oauthSecrets,
        signIn: CloudKitSignIn(client: backends.cloudKit),
        sealer: VaultGrantSealer(vault: backends.vault),
        binder: VaultTokenBinder(vault: backends.vault),
        metadataFetcher: configuration.oauth.metadataDocuments
            ? HTTPClientMetadataFetcher(
                client: backends.http, allowsLoopback: configuration.oauth.allowLoopbackMetadataDocuments) : nil,
        clock: clock,
        events: { oauthEvents.record($0) })

    var router = Router(onError: { error, _ in
        var event = LogEvent(.error, "http.unhandled_error")
        event.outcome = StaticOrRoute(errorType: error)
        logger.log(event)
    })
    let healthy = Response.text("ok")
    router.get("/healthz", immediate: { _ in healthy })
    let readiness = Readiness(
        store: backends.store, keyService: backends.keyService, credentials: credentials, clock: clock)
    router.get("/readyz") { _ in await readiness.response() }
    oauth.register(on: &router)
    LocalBounce(ports: configuration.localBouncePorts).register(on: &router)

    let toolCalls =
        configuration.toolCallsPerMinute > 0
        ? RateLimiter(.init(requests: configuration.toolCallsPerMinute, window: .seconds(60))) : nil
    let serializer = GrantSerializer()
    let authenticator = RelayAuthenticator(
        oauth: oauth, vault: backends.vault, cache: cache, serializer: serializer, states: states,
        observer: upstream, credentials: credentials, toolCalls: toolCalls, clock: clock,
        endGrace: SessionEndGrace(duration: configuration.cloudKit.sessionEndGrace, clock: clock))
    let unsavedRotations = UnsavedRotations(
        states: states, serializer: serializer,
        writer: RotationWriter(oauth: oauth, states: states, observer: upstream))
    metrics.declareGauge(
        "relay_cloudkit_unsaved_tokens", help: "Grants whose rotated CloudKit token the store has not taken yet."
    ) { Double(states.unsavedCount) }
    let endpoint = try MCPEndpoint(
        configuration: configuration.mcpConfiguration(logger: logger, metrics: metrics),
        tools: MCPFeatures.tools(
            client: backends.cloudKit, userIDKey: backends.oauthSecrets.userIDKey, for: GrantPrincipal.self),
        prompts: MCPFeatures.prompts,
        resources: MCPFeatures.resources,
        extensions: MCPFeatures.extensions,
        authenticator: authenticator)
    // A tool whose scope the authorization server does not offer could never be called: no
    // consent can grant it. Refuse to start rather than serve a tool nobody can use.
    let unoffered = endpoint.registry.declaredScopes.subtracting(oauth.configuration.scopes)
    guard unoffered.isEmpty else {
        throw MCPError.internalError(
            "Tools require scopes the authorization server does not offer: \(unoffered.sorted())")
    }

    endpoint.mount(on: &router)
    // The router names both MCP paths "/mcp", so logs and metrics name the route as before.
    let observer = RequestObserver(logger: logger, metrics: metrics, router: router)
    // Registrations from an address flooding new metadata: refused from the head, served last.
    var responder = oauth.sheddingRegistrations(router.responder)
    if let plainHTTP = PlainHTTPGuard(issuer: configuration.issuer, trustedProxies: configuration.server.trustedProxies)
    {
        responder = plainHTTP.wrap(responder)
    }
    var serverConfiguration = configuration.server
    serverConfiguration.onEvent = ConnectionObserver(metrics: metrics, logger: logger).record
    serverConfiguration.lowPriority = { oauth.shedsRegistration($0) }
    let server = Server(configuration: serverConfiguration, responder: observer.wrap(responder))
    metrics.declareGauge("relay_http_open_connections", help: "Open client connections.") {
        Double(server.openConnections)
    }
    metrics.declareCounter(
        "relay_log_lines_suppressed_total", help: "Log lines counted in a summary line instead of written (log budget)."
    ) { Double(logger.suppressedLines) }
    metrics.declareCounter(
        "relay_log_lines_dropped_total", help: "Log lines lost because the log writer fell behind."
    ) { Double(logger.droppedLines) }
    metrics.declareGauge("relay_vault_cached_keys", help: "Unwrapped data keys cached in memory.") {
        Double(backends.vault.cachedKeyCount)
    }
    if case .sqlite = configuration.store {
        metrics.declareGauge(
            "relay_sqlite_memory_bytes", help: "Memory SQLite holds (page caches, bounded per connection)."
        ) { Double(SQLiteStore.memoryInUse) }
    }
    ProcessMemory.declareGauges(on: metrics)
    var metricsServer: Server?
    var grantsGauge: GrantsGauge?
    if let metricsPort = configuration.metricsPort {
        if configuration.grantsGaugeInterval > .zero {
            grantsGauge = GrantsGauge(
                admin: oauth.admin, interval: configuration.grantsGaugeInterval, logger: logger,
                metrics: metrics)
        }
        var metricsRouter = Router()
        metricsRouter.get("/metrics") { _ in
            Response(
                status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Array(metrics.render().utf8))
        }
        // A scraper needs a connection or two; the few allowed here are part of ConnectionBudget's reserve.
        metricsServer = Server(
            configuration: ServerConfiguration(
                host: configuration.metricsHost, port: metricsPort, eventLoops: 1, maxConnections: 64),
            responder: metricsRouter.responder)
    }
    return Application(
        configuration: configuration, backends: backends, oauth: oauth, server: server, metricsServer: metricsServer,
        logger: logger, metrics: metrics, grantsGauge: grantsGauge,
        memoryTrimmer: MemoryTrimmer(logger: logger, metrics: metrics), credentials: credentials,
        serializer: serializer, unsavedRotations: unsavedRotations)
}
