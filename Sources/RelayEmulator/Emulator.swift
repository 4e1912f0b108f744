import Foundation
import RelayHTTP

/// A local CloudKit Web Services emulator: the database API subset the relay uses, a fake Apple
/// sign-in page, and a loopback-only control API for tests and benchmarks. Runs in-process on
/// the RelayHTTP `Server`, or standalone as `cloudkit-emulator`.
///
/// ```swift
/// let emulator = try Emulator(configuration: EmulatorConfiguration(callbackURL: "http://127.0.0.1:8080/cb"))
/// try emulator.start()
/// // CloudKitConfiguration(baseURL: emulator.baseURL, container: "iCloud.test", apiToken: …)
/// ```
package final class Emulator: Sendable {
    /// The configuration it was started with.
    package let configuration: EmulatorConfiguration
    let state: EmulatorState
    private let server: Server

    /// An emulator, not yet listening. Loads the state file if one is configured.
    package init(configuration: EmulatorConfiguration = EmulatorConfiguration()) throws(EmulatorError) {
        self.configuration = configuration
        state = try EmulatorState(configuration: configuration)
        let serverConfiguration = ServerConfiguration(
            host: configuration.host, port: configuration.port, eventLoops: configuration.eventLoops)
        let routes = EmulatorRoutes(state: state)
        server = Server(configuration: serverConfiguration, responder: routes.responder)
        routes.server.set(server)
    }

    /// Starts listening.
    package func start() throws(EmulatorError) {
        do {
            try server.start()
        } catch {
            throw .startup("cannot listen on \(configuration.host):\(configuration.port): \(error)")
        }
    }

    /// Stops listening (in-flight requests finish) and writes the state file.
    package func shutdown() {
        server.shutdown()
        state.flush()
    }

    /// Waits until the server has stopped.
    package func waitUntilStopped() async { await server.waitUntilStopped() }

    /// The bound port.
    package var port: Int { server.port }

    /// TCP connections open right now.
    package var openConnections: Int { server.openConnections }

    /// `http://127.0.0.1:<port>` (or the configured public URL): the CloudKit base URL to use.
    package var baseURL: String {
        if let publicURL = configuration.publicURL { return publicURL }
        let host = configuration.host == "0.0.0.0" || configuration.host == "::" ? "127.0.0.1" : configuration.host
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}
