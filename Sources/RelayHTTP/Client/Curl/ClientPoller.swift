import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// The client loop's epoll instance and wake-up eventfd. libcurl tells the loop which sockets to
/// watch (socket callback) and when to call back on a timer; epoll reports only sockets that are
/// ready, so a wake-up costs O(ready sockets), not O(transfers). Each socket is tagged with the
/// lane (multi handle) that watches it.
///
/// `@unchecked Sendable`: `watch`/`wait` run on the loop thread only; `wake()` writes to the
/// eventfd, which is safe from any thread.
final class ClientPoller: @unchecked Sendable {
    private let epollFD: Int32
    private let wakeFD: Int32
    private var watched = Set<Int32>()
    private let events: UnsafeMutablePointer<epoll_event>
    private static let maxEvents: Int32 = 128
    /// The eventfd's tag: no lane has it.
    private static let wakeTag = UInt64.max

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

    /// Watches `fd` of `lane` for reading and/or writing; both false stops watching it.
    func watch(_ fd: Int32, lane: Int, read: Bool, write: Bool) {
        guard read || write else {
            if watched.remove(fd) != nil { epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil) }
            return
        }
        var event = epoll_event()
        event.events = (read ? EPOLLIN.rawValue : 0) | (write ? EPOLLOUT.rawValue : 0)
        event.data.u64 = UInt64(UInt32(bitPattern: fd)) | UInt64(lane) << 32
        if watched.insert(fd).inserted {
            if epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) != 0, errno == EEXIST {
                epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
            }
        } else if epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) != 0, errno == ENOENT {
            epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)
        }
    }

    /// A socket that is ready, with what it is ready for.
    struct Ready {
        var fd: Int32
        var lane: Int
        var readable: Bool
        var writable: Bool
        var failed: Bool
    }

    /// Waits up to `timeout` ms (-1: until woken) and returns the ready sockets (never the eventfd).
    func wait(timeout: Int32) -> [Ready] {
        let count = epoll_wait(epollFD, events, Self.maxEvents, timeout)
        guard count > 0 else { return [] }
        var ready: [Ready] = []
        ready.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            let event = events[index]
            let tag = event.data.u64
            if tag == Self.wakeTag {
                var value: UInt64 = 0
                _ = read(wakeFD, &value, 8)
                continue
            }
            ready.append(
                Ready(
                    fd: Int32(bitPattern: UInt32(truncatingIfNeeded: tag)), lane: Int(tag >> 32),
                    readable: event.events & EPOLLIN.rawValue != 0,
                    writable: event.events & EPOLLOUT.rawValue != 0,
                    failed: event.events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0))
        }
        return ready
    }
}
