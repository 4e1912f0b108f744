/// One client connection's state. Owned by its event loop.
///
/// `@unchecked Sendable`: a connection is only ever read or written on its loop's thread. Request
/// tasks capture it, but they run with that loop as their executor preference, so the code after
/// each `await` resumes on the same thread.
final class Connection: @unchecked Sendable {
    /// What the current deadline guards.
    enum Timer {
        case none
        /// The head's total deadline.
        case header
        /// The earliest of the body's idle, total and minimum-rate deadlines.
        case body
        case keepAlive
        case write
        case linger
    }

    let fd: Int32
    let peer: IPAddress?
    /// The block counted against the per-address cap for this connection (nil: not counted).
    let countedBlock: AddressBlock?
    var parser: HTTPRequestParser
    /// Bytes received but not yet consumed by the parser.
    var input: [UInt8] = []
    /// True after the parser said it needs more than `input` holds.
    var inputNeedsMore = false
    var output: [UInt8] = []
    var outputOffset = 0
    /// Edge-triggered epoll: the socket may hold unread bytes.
    var readable = false
    /// A handler is running for the current request.
    var busy = false
    /// True while the dispatching call is still on the stack (the handler finished synchronously).
    var inDispatch = false
    var writeBlocked = false
    var keepAlive = true
    var closeAfterWrite = false
    var lingering = false
    var closed = false
    var dirty = false
    var timer = Timer.header
    var deadline: Int64 = 0
    /// When the current request's head ended (its body began), for the body's total and rate deadlines.
    var bodyStarted: Int64 = 0
    /// When the last body byte arrived, for the idle deadline.
    var lastBodyByte: Int64 = 0
    /// When the current request began to arrive (the accept, or its first byte after an idle
    /// period): its place in the loop's reading queue and the start its head deadline shrinks from.
    var requestStarted: Int64 = 0
    /// Bytes received since `requestStarted`, for the rate that names the slowest request (`LoadShedding`).
    var requestBytes = 0
    /// When the connection last became idle: its place in the loop's idle queue.
    var idleSince: Int64 = 0
    /// A low-priority request waiting for its turn (`EventLoop.serveLowPriority`); the connection
    /// is `busy` meanwhile, so it reads nothing more.
    var deferred: ParsedRequest?
    /// What `ServerConfiguration.lowPriority` said about the current request when it was asked
    /// at its head, before the body had arrived; nil: not asked yet.
    var headVerdict: Bool?

    init(fd: Int32, peer: IPAddress?, countedBlock: AddressBlock?, limits: HTTPParserLimits) {
        self.fd = fd
        self.peer = peer
        self.countedBlock = countedBlock
        self.parser = HTTPRequestParser(limits: limits)
    }

    /// Whether the next request may be parsed and dispatched.
    var canProcess: Bool {
        !busy && !closed && !closeAfterWrite && !lingering && !writeBlocked
            && output.count - outputOffset < Self.outputHighWater
    }

    /// Unflushed output beyond this pauses request processing (backpressure).
    static let outputHighWater = 64 * 1024

    var hasPendingOutput: Bool { outputOffset < output.count }
}

/// A parsed request and how its response is to be written.
struct ParsedRequest {
    var request: Request
    /// An HTTP/1.0 request that asked to be kept alive (its response says so).
    var http10KeepAlive: Bool
    /// A HEAD request: the response is written without its body.
    var omitBody: Bool
}
