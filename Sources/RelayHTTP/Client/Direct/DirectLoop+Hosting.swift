#if canImport(Glibc)
    import Glibc
#endif

/// A direct loop driven by a server event loop's thread instead of a thread of its own
/// (`HTTPClient.hostedLoop(sharing:)`, `EventLoop.guest`). A request handler's exchange then
/// starts, and its continuation resumes, on the thread the handler runs on: no eventfd write, no
/// wake-up and no context switch either way. The host polls the loop's epoll instance as one
/// of its own descriptors, turns the loop when it is ready or when a handler queued an
/// exchange (`hostPending`), and bounds its own wait by the loop's next deadline.
///
/// When the host stops (the server has drained), the loop carries on with a thread of its own,
/// so an exchange still in flight, such as a rotated CloudKit token being saved to DynamoDB,
/// finishes rather than fails.
extension DirectLoop {
    /// Whether the calling thread is the event loop driving this one.
    var isHostedOnCurrentThread: Bool {
        let host = hostThread.load(ordering: .relaxed)
        return host != 0 && host == UInt(pthread_self())
    }

    /// The epoll instance the host watches for input: ready when a socket or the wake-up eventfd is.
    var readinessDescriptor: Int32 { poller.descriptor }

    /// Called on the host's thread before its first round: from now on that thread drives the loop.
    func attachHost() {
        hostThread.store(UInt(pthread_self()), ordering: .releasing)
    }

    /// Whether the host must turn the loop this round: epoll said ready, a handler queued an
    /// exchange, or a deadline is due.
    func needsTurn(ready: Bool) -> Bool {
        ready || hostPending || (nextDeadline != .max && nextDeadline <= Self.monotonicMilliseconds())
    }

    /// Called on the host's thread as it stops: the loop moves to a thread of its own.
    func detachHost() {
        hostThread.store(0, ordering: .releasing)
        hostPending = false
        startThread()
    }
}
