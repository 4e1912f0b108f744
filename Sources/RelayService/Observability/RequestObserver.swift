import RelayHTTP

/// Wraps the router: gives every request an ID (`X-Request-Id`), logs one line per request
/// (route pattern, status, duration — never the target, headers or body) and records metrics.
struct RequestObserver: Sendable {
    let logger: Logger
    let router: Router
    let requests: Metrics.Counter
    let durations: Metrics.Histogram
    /// Paths answered without logs or metrics (exact routes, so the path is the route pattern).
    let quietPaths: Set<Substring> = ["/healthz", "/readyz"]

    init(logger: Logger, metrics: Metrics, router: Router) {
        self.logger = logger
        self.router = router
        requests = metrics.declareCounter(
            "relay_http_requests_total", help: "HTTP requests by route and status.", labels: ["route", "status"])
        durations = metrics.declareHistogram(
            "relay_http_request_duration_seconds", help: "Time from a parsed request to its response, by route.",
            labels: ["route"])
    }

    /// `inner` with request IDs, logs and metrics around it.
    func wrap(_ inner: Responder) -> Responder {
        Responder { request in
            // Health checks bypass logs and metrics: probes would drown both and they cost nothing to answer.
            if quietPaths.contains(request.path) { return inner(request) }
            let route = routeName(request)
            let started = ContinuousClock.now
            let id = RequestID.random()
            switch inner(request) {
            case .now(let response):
                return .now(finish(response, id: id, route: route, started: started))
            case .later(let work):
                return .later { finish(await work(), id: id, route: route, started: started) }
            }
        }
    }

    /// The route pattern for logs and metrics: never the raw path, which may carry codes or tokens.
    private func routeName(_ request: Request) -> String {
        router.pattern(for: request) ?? "unmatched"
    }

    private func finish(_ response: Response, id: RequestID, route: String, started: ContinuousClock.Instant)
        -> Response
    {
        let elapsed = ContinuousClock.now - started
        let seconds = elapsed.seconds
        requests.increment(route, String(response.status.code))
        durations.observe(seconds, route)
        var response = response
        response.headers.set("X-Request-Id", id.description)
        // A 503 or 504 is the relay telling a client to retry while a backend is away; the cause is an
        // error line of its own with its reason (`oauth.failure`, `store.rotation_unsaved`…): a warning
        // here. Any other 5xx is the relay's own failure (`http.unhandled_error` names its type).
        let level: LogEvent.Level =
            switch response.status.code {
            case 503, 504: .warning
            case 500...: .error
            default: .info
            }
        var event = LogEvent(level, "http.request")
        if level == .error {
            event.reason = LogReason(errorDescription: "the relay failed the request (see http.unhandled_error)")
        }
        event.requestID = id
        event.route = StaticOrRoute(name: route)
        event.status = response.status.code
        event.durationMilliseconds = seconds * 1000
        logger.log(event)
        return response
    }
}
