import RelaySync
import Synchronization

/// The relay's one outbound HTTP client (CloudKit, AWS, client metadata documents), on libcurl's
/// multi interface driven by a thread of its own.
///
/// - Connections are pooled and reused across requests and hosts. HTTP/2 is used when a TLS
///   server offers it (ALPN); concurrent requests to such an origin share a few connections
///   (`maxMultiplexedConnectionsPerHost`, many streams each) and wait for a free stream rather
///   than open more. An origin that answers over HTTP/1.1 gets a connection per request in flight.
/// - TLS sessions are shared by all of the client's connections, so a reconnection resumes one.
/// - TLS peer and host verification are always on; `caFile` only adds trust anchors.
/// - Redirects are never followed: a 3xx comes back as a response.
/// - Cancelling the calling task aborts the transfer at once.
/// - With `directClient` on, `http` and `https` exchanges with any address allowed, no pinned
///   address and no proxy go to the relay's own client (`DirectLoop`: HTTP/1.1, and TLS with
///   HTTP/2 when ALPN offers it, connections kept per origin, one `send` and usually one `recv` per
///   exchange) under the same promises; the rest stays with libcurl.
///
/// ```swift
/// let client = try HTTPClient()
/// let response = try await client.send(ClientRequest(url: "https://example.com/"))
/// ```
package final class HTTPClient: Sendable {
    /// The settings it runs with.
    package let configuration: HTTPClientConfiguration
    private let loop: ClientLoop
    private let direct: DirectLoop?
    /// Direct loops driven by server event loops (`hostedLoop(sharing:)`).
    private let hosted = Locked<[DirectLoop]>([])
    private let counters = ClientStatisticsCounters()

    /// Starts a client and its thread.
    package init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws(ClientError) {
        self.configuration = configuration
        loop = try ClientLoop(configuration: configuration, statistics: counters)
        loop.startThread()
        if configuration.directClient {
            let direct = try DirectLoop(configuration: configuration, statistics: counters)
            direct.startThread()
            self.direct = direct
        } else {
            direct = nil
        }
    }

    deinit { shutdown() }

    /// Sends one request and waits for the complete response.
    ///
    /// Thin on purpose: an async function's locals live in its task frame, and a frame past the
    /// task allocator's 984-byte slab is a malloc of its own (over 1 KB: glibc's slow path) on
    /// every call. The route is chosen by a synchronous step and each path awaits in its own frame.
    package func send(_ request: ClientRequest) async throws(ClientError) -> ClientResponse {
        if Task.isCancelled { throw .cancelled }
        switch try route(request) {
        case .direct(let exchange, let loop): return try await send(exchange, on: loop)
        case .curl(let transfer): return try await send(transfer)
        }
    }

    private enum Route {
        case direct(DirectExchange, DirectLoop)
        case curl(Transfer)
    }

    @inline(never)
    private func route(_ request: ClientRequest) throws(ClientError) -> Route {
        if let direct, let target = DirectExchange.target(for: request, configuration) {
            let exchange = try DirectExchange(request, target: target, configuration: configuration)
            if let hosted = hostedLoopOnCurrentThread() {
                counters.hostedExchanges.add(1, ordering: .relaxed)
                return .direct(exchange, hosted)
            }
            return .direct(exchange, direct)
        }
        return .curl(try Transfer(request, configuration, easy: loop.easyPool.take()))
    }

    private func send(_ transfer: Transfer) async throws(ClientError) -> ClientResponse {
        counters.requests.add(1, ordering: .relaxed)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.continuation = continuation
                loop.submit(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
        return try result.get()
    }

    private func send(_ exchange: DirectExchange, on direct: DirectLoop) async throws(ClientError)
        -> ClientResponse
    {
        counters.requests.add(1, ordering: .relaxed)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchange.continuation = continuation
                direct.submit(exchange)
            }
        } onCancel: {
            direct.cancel(exchange)
        }
        return try result.get()
    }

    /// A direct loop for a server event loop to drive on its thread (`EventLoop.guest`): exchanges
    /// sent from that thread go to it, and their callers resume there, with no thread hop either
    /// way. `count` loops share the connection limits (each gets its part, at least one), so
    /// the calls of every event loop together stay within them. Nil when the direct client is off.
    func hostedLoop(sharing count: Int) -> DirectLoop? {
        guard configuration.directClient else { return nil }
        let parts = max(1, count)
        var share = configuration
        share.maxMultiplexedConnectionsPerHost = max(1, configuration.maxMultiplexedConnectionsPerHost / parts)
        if configuration.maxConnectionsPerHost > 0 {
            share.maxConnectionsPerHost = max(1, configuration.maxConnectionsPerHost / parts)
        }
        share.maxIdleConnections = max(1, configuration.maxIdleConnections / parts)
        guard let loop = try? DirectLoop(configuration: share, statistics: counters) else { return nil }
        hosted.withLock { $0.append(loop) }
        return loop
    }

    private func hostedLoopOnCurrentThread() -> DirectLoop? {
        hosted.withLock { loops in loops.first { $0.isHostedOnCurrentThread } }
    }

    /// Counters since the client started.
    package var statistics: ClientStatistics {
        ClientStatistics(
            requests: counters.requests.load(ordering: .relaxed),
            completed: counters.completed.load(ordering: .relaxed),
            inFlight: counters.inFlight.load(ordering: .relaxed),
            connectionsOpened: counters.connectionsOpened.load(ordering: .relaxed),
            hostedExchanges: counters.hostedExchanges.load(ordering: .relaxed)
        )
    }

    /// Stops the client thread; requests in flight fail with `ClientError.shutDown`, later ones
    /// too. Also happens when the client is released.
    package func shutdown() {
        loop.stop()
        direct?.stop()
        for hosted in hosted.withLock({ $0 }) { hosted.stop() }
    }
}

/// What an `HTTPClient` has done so far.
package struct ClientStatistics: Sendable, Equatable {
    /// Requests accepted by `send`.
    package var requests: Int
    /// Requests that finished, with a response or an error.
    package var completed: Int
    /// Transfers running right now.
    package var inFlight: Int
    /// TCP connections opened (pooled connections reused do not count).
    package var connectionsOpened: Int
    /// Requests a server event loop carried on its own thread (`ServerConfiguration.upstream`).
    package var hostedExchanges: Int
}

/// The atomics behind `ClientStatistics`.
final class ClientStatisticsCounters: Sendable {
    let requests = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)
    let connectionsOpened = Atomic<Int>(0)
    let hostedExchanges = Atomic<Int>(0)
}
