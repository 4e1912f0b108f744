import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Turns SIGTERM and SIGINT into a call (usually `Server.shutdown`), and ignores SIGPIPE.
/// Keep the returned value alive for as long as the signals should be watched.
///
/// `@unchecked Sendable`: the sources are set once in `init` and only cancelled afterwards, which
/// Dispatch allows from any thread.
package final class ShutdownSignals: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    /// Starts watching; `handler` runs on a private queue each time a signal arrives.
    package init(_ handler: @escaping @Sendable (Int32) -> Void) {
        signal(SIGPIPE, SIG_IGN)
        let queue = DispatchQueue(label: "relay.signals")
        sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)  // the default action would kill the process before the source runs
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    /// Stops watching and restores the default actions.
    package func cancel() {
        for source in sources { source.cancel() }
        signal(SIGTERM, SIG_DFL)
        signal(SIGINT, SIG_DFL)
    }
}
