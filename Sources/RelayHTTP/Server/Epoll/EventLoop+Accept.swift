import CEpoll
import RelaySync

#if canImport(Glibc)
    import Glibc
#endif

extension EventLoop {
    private static let acceptBatch = 64
    /// How far past `maxConnections` the table may run while other loops close what they were asked to.
    static let overshoot = 64

    /// Accepts pending connections, a batch at a time so one busy listener cannot starve the rest.
    func acceptConnections() {
        guard listenFD >= 0 else {
            listenerReady = false
            return
        }
        for _ in 0..<Self.acceptBatch {
            let (fd, peer) = Socket.accept(listenFD)
            if fd < 0 {
                switch errno {
                case EAGAIN, EWOULDBLOCK:
                    listenerReady = false
                case EINTR, ECONNABORTED, EPROTO:
                    continue
                case EMFILE, ENFILE:
                    shedWithReserveDescriptor()
                    continue
                default:
                    listenerReady = false
                }
                return
            }
            let total = state.connectionCount.wrappingAdd(1, ordering: .relaxed).newValue
            if draining {
                refuse(fd, .capacity)
                continue
            }
            // The address's share first: a connection it refuses must not cost another its slot.
            var counted: AddressBlock?
            if let perAddress = state.perAddress, let peer, !state.configuration.trustedProxies.trusts(peer) {
                let block = peer.block
                guard perAddress.admit(block) else {
                    refuse(fd, .perAddress)
                    continue
                }
                counted = block
            }
            // At the cap, the cheapest connection of the process makes room (`LoadShedding`); another
            // loop's closes a moment later, so the table may run over by its outstanding requests.
            let maxConnections = state.configuration.maxConnections
            if total > maxConnections, total > maxConnections + Self.overshoot || !makeRoom() {
                if let counted { state.perAddress?.release(counted) }
                refuse(fd, .capacity)
                continue
            }
            adopt(fd, peer: peer, countedBlock: counted)
        }
    }

    private func adopt(_ fd: Int32, peer: IPAddress?, countedBlock: AddressBlock?) {
        Socket.setNoDelay(fd)
        let connection = Connection(
            fd: fd, peer: peer, countedBlock: countedBlock, limits: state.configuration.limits)
        connection.timer = .header
        connection.deadline = now + Int64(state.configuration.headerReadTimeout.wholeMilliseconds)
        queueReading(connection)
        if Int(fd) >= connections.count {
            connections.append(contentsOf: repeatElement(nil, count: max(Int(fd) + 1 - connections.count, 64)))
        }
        connections[Int(fd)] = connection
        connectionCount += 1
        // Registered once, edge-triggered, for both directions: no epoll_ctl per request.
        register(fd, events: EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue)
    }

    /// Over a connection limit: answer a short 503 and close. Whatever the client already sent is
    /// read first so the close is a FIN, not a reset that could destroy the 503.
    private func refuse(_ fd: Int32, _ reason: ServerEvent.Refusal) {
        state.report(.refused(reason))
        // Uncounted before the client can see the close: whoever reads the count after the 503
        // (a test, a gauge) must not find the refused connection still in it.
        state.connectionCount.wrappingSubtract(1, ordering: .relaxed)
        ResponseSerializer.overloaded.withUnsafeBytes {
            _ = send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        _ = recv(fd, readBuffer.baseAddress, readBuffer.count, Int32(MSG_DONTWAIT))
        shutdown(fd, Int32(SHUT_WR))
        close(fd)
    }

    /// Out of descriptors: free the spare one, accept and drop a connection, take the spare back.
    /// This empties the backlog instead of spinning on a listener that stays readable.
    private func shedWithReserveDescriptor() {
        guard reserveFD >= 0 else {
            listenerReady = false
            return
        }
        close(reserveFD)
        let (fd, _) = Socket.accept(listenFD)
        if fd >= 0 {
            close(fd)
            state.report(.refused(.descriptors))
        }
        reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }
}
