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
    /// Where the connection is in its life. Changed only through `move(to:)`, which refuses a
    /// transition `Phase.allows` does not name.
    private(set) var phase = Phase.reading
    /// Edge-triggered epoll: the socket may hold unread bytes.
    var readable = false
    /// True while the dispatching call is still on the stack (the handler finished synchronously).
    var inDispatch = false
    /// The socket took less than was offered; the rest waits for `EPOLLOUT`.
    var writeBlocked = false
    /// Whether the connection stays open after the current request's response.
    var keepAlive = true
    /// Queued for the loop's flush at the end of this iteration.
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

    /// A connection's life: requests are read and answered in turn, then the last answer is
    /// written, the write side shut and the rest of the input drained, then the socket closed.
    enum Phase: Equatable {
        /// Reading the next request (or idle between requests).
        case reading
        /// A handler is running for the current request; nothing more is read.
        case serving
        /// The last response is queued: once it is written the connection closes.
        case closing
        /// Half-closed: reading and dropping what the client still sends, until it closes.
        case lingering
        case closed

        /// Whether a connection in this phase may move to `next`.
        func allows(_ next: Phase) -> Bool {
            switch (self, next) {
            case (.reading, .serving), (.reading, .closing): true
            case (.serving, .reading), (.serving, .closing): true
            case (.closing, .closing), (.closing, .lingering): true
            case (.closed, _): false
            case (_, .closed): true
            default: false
            }
        }
    }

    /// Moves to `next`; an illegal transition is a bug in the loop and stops the process.
    func move(to next: Phase) {
        precondition(phase.allows(next), "connection \(fd): \(phase) cannot become \(next)")
        phase = next
    }

    /// A handler is running for the current request.
    var busy: Bool { phase == .serving }
    /// The last response is queued; the connection closes once it is written.
    var closeAfterWrite: Bool { phase == .closing }
    var lingering: Bool { phase == .lingering }
    var closed: Bool { phase == .closed }

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
