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
///
/// ```swift
/// let client = try HTTPClient()
/// let response = try await client.send(ClientRequest(url: "https://example.com/"))
/// ```
package final class HTTPClient: Sendable {
    /// The settings it runs with.
    package let configuration: HTTPClientConfiguration
    private let loop: ClientLoop
    private let counters = ClientStatisticsCounters()

    /// Starts a client and its thread.
    package init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws(ClientError) {
        self.configuration = configuration
        loop = try ClientLoop(configuration: configuration, statistics: counters)
        loop.startThread()
    }

    deinit { shutdown() }

    /// Sends one request and waits for the complete response.
    package func send(_ request: ClientRequest) async throws(ClientError) -> ClientResponse {
        if Task.isCancelled { throw .cancelled }
        let transfer = try Transfer(request, configuration, easy: loop.easyPool.take())
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

    /// Counters since the client started.
    package var statistics: ClientStatistics {
        ClientStatistics(
            requests: counters.requests.load(ordering: .relaxed),
            completed: counters.completed.load(ordering: .relaxed),
            inFlight: counters.inFlight.load(ordering: .relaxed),
            connectionsOpened: counters.connectionsOpened.load(ordering: .relaxed)
        )
    }

    /// Stops the client thread; requests in flight fail with `ClientError.shutDown`, later ones
    /// too. Also happens when the client is released.
    package func shutdown() {
        loop.stop()
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
}

/// The atomics behind `ClientStatistics`.
final class ClientStatisticsCounters: Sendable {
    let requests = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)
    let connectionsOpened = Atomic<Int>(0)
}
