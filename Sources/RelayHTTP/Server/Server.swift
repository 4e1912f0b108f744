import Foundation
import RelaySync

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP/1.1 server: one epoll event loop per thread, each with its own SO_REUSEPORT
/// listener. Handlers are `async` and run on the loop that accepted the connection.
///
/// ```swift
/// let server = Server(configuration: configuration, responder: router.responder)
/// try server.start()
/// await server.waitUntilStopped()
/// ```
package final class Server: Sendable {
    private struct Lifecycle {
        var loops: [EventLoop] = []
        var running = 0
        var port = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: ServerState
    private let lifecycle = Locked(Lifecycle())

    /// A server that will answer every request with `responder`.
    package init(configuration: ServerConfiguration, responder: Responder) {
        state = ServerState(configuration: configuration, responder: responder)
    }

    /// The bound port (useful with port 0); 0 before `start()`.
    package var port: Int { lifecycle.withLock { $0.port } }

    /// Connections open right now, across loops.
    package var openConnections: Int { state.connectionCount.load(ordering: .relaxed) }

    /// Connections counted against the per-address cap for `address`'s block (an IPv4 address, an
    /// IPv6 /64) right now; 0 when the cap is off or the address is a trusted proxy.
    package func connections(from address: IPAddress) -> Int { state.perAddress?.held(by: address.block) ?? 0 }

    /// Blocks holding at least one counted connection (the size of the per-address table).
    package var addressesWithConnections: Int { state.perAddress?.blocks ?? 0 }

    /// Binds the listeners and starts the loops. Returns once the server accepts connections.
    package func start() throws(SocketError) {
        signal(SIGPIPE, SIG_IGN)
        let configuration = state.configuration
        var loops: [EventLoop] = []
        var port = configuration.port
        do throws(SocketError) {
            // A port from the kernel (0) is free by construction; a given one is checked first.
            if port != 0 { try Socket.claim(host: configuration.host, port: port) }
            for _ in 0..<configuration.eventLoops {
                let listener = try Socket.listen(host: configuration.host, port: port, backlog: configuration.backlog)
                port = listener.port
                loops.append(try EventLoop(state: state, listenFD: listener.fd))
            }
        } catch {
            for loop in loops where loop.listenFD >= 0 { close(loop.listenFD) }
            throw error
        }
        lifecycle.withLock {
            $0.loops = loops
            $0.running = loops.count
            $0.port = port
        }
        for (index, loop) in loops.enumerated() {
            let thread = Thread { [self] in
                ThreadName.setCurrent("relay-loop-\(index)")
                loop.run()
                loopFinished()
            }
            thread.name = "relay-loop-\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Stops accepting, lets in-flight requests finish (up to the drain timeout), then stops.
    /// Safe to call from any thread, more than once.
    package func shutdown() {
        state.shuttingDown.store(true, ordering: .releasing)
        for loop in lifecycle.withLock({ $0.loops }) { loop.wake() }
    }

    /// Waits until every loop has stopped.
    package func waitUntilStopped() async {
        await withCheckedContinuation { continuation in
            let done = lifecycle.withLock { lifecycle -> Bool in
                if lifecycle.running == 0 { return true }
                lifecycle.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func loopFinished() {
        let waiters = lifecycle.withLock { lifecycle -> [CheckedContinuation<Void, Never>] in
            lifecycle.running -= 1
            guard lifecycle.running == 0 else { return [] }
            defer { lifecycle.waiters.removeAll() }
            return lifecycle.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

extension Server {
    /// A loopback TCP port that was free a moment ago, for a listener that must be named before it
    /// starts (the demo's issuer, a child process told its port).
    package static func freePort(host: String = "127.0.0.1") throws(SocketError) -> Int {
        try Socket.freePort(host: host)
    }

    /// Whether a listener could bind `host:port` now (the check `start` makes before it binds with
    /// SO_REUSEPORT): nothing listens there and no connection holds it as its local port.
    package static func isFree(port: Int, host: String = "127.0.0.1") -> Bool {
        (try? Socket.claim(host: host, port: port)) != nil
    }
}
