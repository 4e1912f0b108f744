/// Something the server did on its own, without a handler: refusing a connection, closing one to
/// make room for another, or cutting a request that arrived too slowly. Reported through `ServerConfiguration.onEvent` so the app can
/// count them; the server itself logs nothing (a flood of them must not become a flood of lines).
package enum ServerEvent: Sendable, Equatable {
    /// Why a new connection was answered 503 and closed (or, out of descriptors, just closed).
    package enum Refusal: String, Sendable {
        /// `maxConnections` reached.
        case capacity
        /// The client's address (IPv6: its /64) already holds `maxConnectionsPerAddress`.
        case perAddress = "per_address"
        /// The process ran out of descriptors: the connection was accepted on the spare one and
        /// dropped without an answer (`maxConnections` is set too high for the descriptor limit).
        case descriptors
    }

    /// Which limit a request ran into before it had fully arrived (it got 408).
    package enum Timeout: String, Sendable {
        /// The head was not complete within `headerReadTimeout`.
        case head
        /// The body was not complete within `bodyTimeout`.
        case bodyDeadline = "body_deadline"
        /// The body arrived slower than `bodyMinimumBytesPerSecond` after the grace period.
        case bodyRate = "body_rate"
        /// No body byte for `bodyIdleTimeout`.
        case bodyIdle = "body_idle"
    }

    /// Which connection a full table closed to admit a new one (`LoadShedding`).
    package enum Shed: String, Sendable {
        /// An idle keep-alive connection (the oldest idle).
        case idleKeepAlive = "idle_keepalive"
        /// A connection still sending its head or body (the slowest of the oldest).
        case slowRequest = "slow_request"
    }

    /// A new connection was turned away.
    case refused(Refusal)
    /// The connection table was full: this connection was closed to admit a new one.
    case shed(Shed)
    /// A request was cut with 408.
    case timedOut(Timeout)
}
