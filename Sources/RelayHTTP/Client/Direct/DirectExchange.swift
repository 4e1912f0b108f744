import Synchronization

/// One exchange on the direct client: the request's bytes, where they go, its limits, and the
/// caller's continuation.
///
/// `@unchecked Sendable`: built on the caller's thread, then handed to the loop thread through its
/// locked inbox; from then on only the loop thread touches the mutable fields. `cancelled` is
/// atomic because the cancelling task sets it from elsewhere.
final class DirectExchange: @unchecked Sendable {
    typealias Completion = CheckedContinuation<Result<ClientResponse, ClientError>, Never>

    let target: DirectTarget
    let method: HTTPMethod
    /// Head and body, ready for one `send`.
    let bytes: [UInt8]
    let maxBytes: Int
    /// When the whole exchange must be over (ms on the monotonic clock).
    let deadline: Int64
    let connectTimeoutMilliseconds: Int64
    let cancelled = Atomic<Bool>(false)
    var continuation: Completion?

    /// The connection carrying it, once it has one.
    var connection: DirectConnection?
    /// Connections this exchange opened (`ClientResponse.connectionsOpened`).
    var connectionsOpened = 0
    /// Whether it was already sent again after a reused connection failed under it.
    var retried = false

    init(_ request: ClientRequest, target: DirectTarget, configuration: HTTPClientConfiguration) throws(ClientError) {
        self.target = target
        method = request.method
        bytes = try H1Request.encode(request, target: target, userAgent: configuration.userAgent)
        maxBytes = request.maxResponseBytes ?? configuration.maxResponseBytes
        deadline =
            DirectLoop.monotonicMilliseconds()
            + Int64((request.timeout ?? configuration.timeout).roundedUpMilliseconds)
        connectTimeoutMilliseconds = Int64(
            (request.connectTimeout ?? configuration.connectTimeout).roundedUpMilliseconds)
    }

    /// RFC 9110 §9.2.2: the methods whose repetition has the same effect as one request.
    var isIdempotent: Bool {
        switch method {
        case .get, .head, .put, .delete, .options, HTTPMethod("TRACE"): true
        default: false
        }
    }

    /// Whether `HTTPClient.send` hands `request` to the direct client: plain `http` (`https` once
    /// the TLS channel plugs in), any address allowed, no pinned address, no proxy.
    static func target(for request: ClientRequest, _ configuration: HTTPClientConfiguration) -> DirectTarget? {
        guard configuration.proxy == nil, request.pinnedAddress == nil,
            (request.addressPolicy ?? configuration.addressPolicy) == .any,
            let target = DirectTarget(request.url), target.scheme == .http
        else { return nil }
        return target
    }
}
