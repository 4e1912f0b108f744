import RelayHTTP

/// The assembled relay: its router and its server. `mustdo-relay` and the tests build it the same
/// way, through `buildApplication(_:)`.
public struct Application: Sendable {
    /// The configuration it was built from.
    public let configuration: Configuration
    /// Every route.
    public let router: Router
    /// The HTTP server answering with `router`.
    public let server: Server

    /// Starts listening; returns once connections are accepted.
    public func start() throws { try server.start() }

}

/// Builds the relay from its configuration. The one place where parts are wired together.
public func buildApplication(_ configuration: Configuration) -> Application {
    var router = Router()
    let healthy = Response.text("ok")
    router.get("/healthz", immediate: { _ in healthy })
    let server = Server(configuration: configuration.server, responder: router.responder)
    return Application(configuration: configuration, router: router, server: server)
}
