import RelaySync
import Synchronization

/// What every loop of one server shares: configuration, the responder, and a few counters.
final class ServerState: Sendable {
    let configuration: ServerConfiguration
    let responder: Responder
    /// Open connections across all loops (for `maxConnections`).
    let connectionCount = Atomic<Int>(0)
    /// Open connections per client, when `maxConnectionsPerAddress` is set.
    let perAddress: ConnectionsPerAddress?
    /// Set once shutdown begins.
    let shuttingDown = Atomic<Bool>(false)
    /// Every loop's shedding board, so a loop at the cap can find room on another (`LoadShedding`).
    let shedBoards = Locked<[ShedBoard]>([])

    init(configuration: ServerConfiguration, responder: Responder) {
        self.configuration = configuration
        self.responder = responder
        perAddress =
            configuration.maxConnectionsPerAddress > 0
            ? ConnectionsPerAddress(
                limit: configuration.maxConnectionsPerAddress, capacity: configuration.maxConnections) : nil
    }

    /// Reports `event` to the configured observer.
    func report(_ event: ServerEvent) { configuration.onEvent?(event) }
}
