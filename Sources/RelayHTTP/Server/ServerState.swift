import Synchronization

/// What every loop of one server shares: configuration, the responder, and a few counters.
final class ServerState: Sendable {
    let configuration: ServerConfiguration
    let responder: Responder
    /// Open connections across all loops (for `maxConnections`).
    let connectionCount = Atomic<Int>(0)
    /// Set once shutdown begins.
    let shuttingDown = Atomic<Bool>(false)

    init(configuration: ServerConfiguration, responder: Responder) {
        self.configuration = configuration
        self.responder = responder
    }
}
