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
    /// Head and body, ready for one `send` (HTTP/1.1; for `https` encoded when an HTTP/1.1
    /// connection first carries it, since the origin may speak HTTP/2).
    private(set) var bytes: [UInt8]
    /// The request as given (HTTP/2 builds its stream from it).
    let request: ClientRequest
    let userAgent: String
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
    /// HTTP/2: its stream on `connection`.
    var stream: Int32 = 0
    /// HTTP/2: times the server refused it unprocessed (REFUSED_STREAM, above a GOAWAY's last id).
    var refusals = 0
    /// Whether any of its response arrived (HTTP/2: the head).
    var sawResponse = false
    /// Whether it is its origin's probe (`OriginRouter`): the connection opened for it teaches
    /// the router what the origin speaks.
    var probe = false
    /// Whether it waits for DNS on the way to the multiplexed path.
    var multiplexed = false

    init(_ request: ClientRequest, target: DirectTarget, configuration: HTTPClientConfiguration) throws(ClientError) {
        self.target = target
        self.request = request
        userAgent = configuration.userAgent
        method = request.method
        if target.scheme == .http {
            bytes = try H1Request.encode(request, target: target, userAgent: configuration.userAgent)
        } else {
            for (name, _) in request.headers where name.isEmpty || !name.utf8.allSatisfy({ ByteClass.token[Int($0)] }) {
                throw .invalidRequest("a header name is not an RFC 9110 token")
            }
            bytes = []
        }
        maxBytes = request.maxResponseBytes ?? configuration.maxResponseBytes
        deadline =
            DirectLoop.monotonicMilliseconds()
            + Int64((request.timeout ?? configuration.timeout).roundedUpMilliseconds)
        connectTimeoutMilliseconds = Int64(
            (request.connectTimeout ?? configuration.connectTimeout).roundedUpMilliseconds)
    }

    /// Encodes the HTTP/1.1 request if it is not yet (its names were checked in `init`).
    func prepareHTTP1() {
        guard bytes.isEmpty else { return }
        bytes = (try? H1Request.encode(request, target: target, userAgent: userAgent)) ?? []
    }

    /// RFC 9110 §9.2.2: the methods whose repetition has the same effect as one request.
    var isIdempotent: Bool {
        switch method {
        case .get, .head, .put, .delete, .options, HTTPMethod("TRACE"): true
        default: false
        }
    }

    /// Whether `HTTPClient.send` hands `request` to the direct client: `http` or `https`, any
    /// address allowed, no pinned address, no proxy.
    static func target(for request: ClientRequest, _ configuration: HTTPClientConfiguration) -> DirectTarget? {
        guard configuration.proxy == nil, request.pinnedAddress == nil,
            (request.addressPolicy ?? configuration.addressPolicy) == .any,
            let target = DirectTarget(request.url)
        else { return nil }
        return target
    }
}
