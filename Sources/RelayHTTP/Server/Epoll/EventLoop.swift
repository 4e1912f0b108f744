import CEpoll
import RelaySync
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One thread running one epoll instance with its own listener. It is also the task executor for
/// the requests it dispatches: handlers start with `Task.immediate` on this thread, and whatever
/// they await resumes here, so connection state needs no locks.
///
/// `@unchecked Sendable`: every stored `var` is touched only on the loop thread, except
/// `remoteJobs` (a lock), `threadID` (an Atomic) and the eventfd, which are safe from any thread.
final class EventLoop: TaskExecutor, @unchecked Sendable {
    let state: ServerState
    let epollFD: Int32
    let wakeFD: Int32
    var listenFD: Int32
    var reserveFD: Int32
    var listenerReady = false
    var connections: [Connection?] = []
    var connectionCount = 0
    var dirty: [Connection] = []
    /// Connections holding a low-priority request, oldest first from `lowPriorityNext`.
    var lowPriority: [Connection] = []
    var lowPriorityNext = 0
    var date = HTTPDate()
    var now: Int64 = 0
    var lastSweep: Int64 = 0
    var draining = false
    var drainDeadline: Int64 = 0
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Connections as they became idle, oldest first from `idleHead`, each with the time it did
    /// (entries of connections that moved on since are skipped when reached): the shedding order.
    var idleQueue: [(Connection, Int64)] = []
    var idleHead = 0
    /// Connections as their current request began to arrive, oldest first from `readingHead`.
    var readingQueue: [(Connection, Int64)] = []
    var readingHead = 0
    /// This loop's part in shedding across the process's loops.
    private(set) var board: ShedBoard!

    private var localJobs: [UnownedJob] = []
    private let remoteJobs = Locked<[UnownedJob]>([])
    private let wakePending = Atomic<Bool>(false)
    private let threadID = Atomic<UInt>(0)
    let stopped = Atomic<Bool>(false)

    static let sweepInterval: Int64 = 250
    private static let maxEvents: Int32 = 256

    init(state: ServerState, listenFD: Int32) throws(SocketError) {
        self.state = state
        self.listenFD = listenFD
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw SocketError("epoll_create1") }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else { throw SocketError("eventfd") }
        reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        register(wakeFD, events: EPOLLIN.rawValue)
        register(listenFD, events: EPOLLIN.rawValue | EPOLLET.rawValue)
        let board = ShedBoard { [weak self] in self?.wake() }
        self.board = board
        state.shedBoards.withLock { $0.append(board) }
    }

    deinit {
        readBuffer.deallocate()
        close(epollFD)
        close(wakeFD)
        if reserveFD >= 0 { close(reserveFD) }
    }

    func register(_ fd: Int32, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)
    }

    // MARK: Executor

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if threadID.load(ordering: .relaxed) == pthread_self() {
            localJobs.append(job)
        } else if stopped.load(ordering: .acquiring) {
            // The loop is gone; let the task finish elsewhere (its completion sees a closed connection).
            globalConcurrentExecutor.enqueue(job)
        } else {
            remoteJobs.withLock { $0.append(job) }
            wake()
        }
    }

    /// Interrupts `epoll_wait` from another thread.
    func wake() {
        guard !wakePending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    private func runJobs() {
        while true {
            if localJobs.isEmpty {
                let remote = remoteJobs.withLock { jobs -> [UnownedJob] in
                    defer { jobs.removeAll(keepingCapacity: true) }
                    return jobs
                }
                guard !remote.isEmpty else { return }
                localJobs = remote
            }
            let batch = localJobs
            localJobs.removeAll(keepingCapacity: true)
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }

    // MARK: Loop

    /// The thread body: runs until shutdown has drained or timed out.
    func run() {
        threadID.store(pthread_self(), ordering: .releasing)
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(Self.maxEvents))
        defer { events.deallocate() }
        now = Socket.monotonicMilliseconds()
        lastSweep = now
        date.refresh()
        while true {
            let busy = listenerReady || !localJobs.isEmpty || hasLowPriorityWork
            let timeout: Int32 = busy ? 0 : Int32(Self.sweepInterval)
            let count = epoll_wait(epollFD, events, Self.maxEvents, timeout)
            now = Socket.monotonicMilliseconds()
            date.refresh()
            if count > 0 {
                for index in 0..<Int(count) { handle(events[index]) }
            }
            if board.requested.load(ordering: .relaxed) > 0 { serveShedRequests() }
            if listenerReady { acceptConnections() }
            runJobs()
            // Low-priority requests go last in the round, a bounded number of them.
            if hasLowPriorityWork { serveLowPriority() }
            flushDirty()
            if now - lastSweep >= Self.sweepInterval {
                lastSweep = now
                sweepTimers()
            }
            if !draining && state.shuttingDown.load(ordering: .acquiring) { beginDrain() }
            if draining && (connectionCount == 0 || now >= drainDeadline) { break }
        }
        stopped.store(true, ordering: .releasing)
        for connection in connections.compactMap({ $0 }) { closeConnection(connection) }
        runJobs()
    }

    private func handle(_ event: epoll_event) {
        let fd = event.data.fd
        if fd == wakeFD {
            var value: UInt64 = 0
            _ = read(wakeFD, &value, 8)
            wakePending.store(false, ordering: .releasing)
            return
        }
        if fd == listenFD {
            listenerReady = true
            return
        }
        guard fd >= 0, Int(fd) < connections.count, let connection = connections[Int(fd)] else { return }
        if event.events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
            closeConnection(connection)
            return
        }
        if event.events & EPOLLOUT.rawValue != 0, connection.writeBlocked {
            flush(connection)
        }
        if event.events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0, !connection.closed {
            connection.readable = true
            if connection.lingering {
                discardInput(connection)
            } else {
                drive(connection)
            }
        }
    }

    private func beginDrain() {
        draining = true
        drainDeadline = now + Int64(state.configuration.drainTimeout.wholeMilliseconds)
        if listenFD >= 0 {
            close(listenFD)
            listenFD = -1
            listenerReady = false
        }
        for connection in connections.compactMap({ $0 }) {
            if !connection.busy && !connection.hasPendingOutput && !connection.parser.hasPartialRequest
                && connection.input.isEmpty
            {
                closeConnection(connection)
            } else {
                connection.keepAlive = false
            }
        }
    }
}
