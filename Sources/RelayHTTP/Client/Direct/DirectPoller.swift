import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// The direct loop's epoll instance and wake-up eventfd. Each connection's socket is registered
/// once, for reading and writing, edge-triggered, tagged with the connection's id: no
/// `epoll_ctl` per exchange. The loop reads until `EAGAIN` or the end of a response and writes
/// until `EAGAIN`, and the next edge tells it when there is more.
///
/// `@unchecked Sendable`: `register`/`wait` run on the loop thread only; `wake()` writes to the
/// eventfd, which is safe from any thread.
final class DirectPoller: @unchecked Sendable {
    private let epollFD: Int32
    /// The epoll instance itself, readable while anything registered is ready (a host event loop
    /// watches it, `DirectLoop+Hosting`).
    var descriptor: Int32 { epollFD }
    private let wakeFD: Int32
    private let events: UnsafeMutablePointer<epoll_event>
    private static let maxEvents: Int32 = 256
    private static let wakeTag = UInt64.max

    /// A socket that is ready: its connection's id and what epoll said.
    struct Ready {
        var id: UInt64
        var readable: Bool
        var writable: Bool
        var failed: Bool
    }

    init?() {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        events = .allocate(capacity: Int(Self.maxEvents))
        guard epollFD >= 0, wakeFD >= 0 else { return nil }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = Self.wakeTag
        epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
    }

    deinit {
        events.deallocate()
        if epollFD >= 0 { close(epollFD) }
        if wakeFD >= 0 { close(wakeFD) }
    }

    /// Interrupts `wait` from any thread.
    func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Watches `fd` for input, output, hang-ups and errors, edge-triggered, until it is closed.
    func register(_ fd: Int32, id: UInt64) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
        event.data.u64 = id
        return epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0
    }

    /// Waits up to `timeout` ms (-1: until woken) and calls `body` for each ready socket (never the
    /// eventfd).
    func wait(timeout: Int32, _ body: (Ready) -> Void) {
        let count = epoll_wait(epollFD, events, Self.maxEvents, timeout)
        guard count > 0 else { return }
        for index in 0..<Int(count) {
            let event = events[index]
            let tag = event.data.u64
            if tag == Self.wakeTag {
                var value: UInt64 = 0
                _ = read(wakeFD, &value, 8)
                continue
            }
            body(
                Ready(
                    id: tag, readable: event.events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0,
                    writable: event.events & EPOLLOUT.rawValue != 0,
                    failed: event.events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0))
        }
    }
}
