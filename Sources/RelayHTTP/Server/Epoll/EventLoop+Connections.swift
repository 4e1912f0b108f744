import CEpoll
import RelaySync

#if canImport(Glibc)
    import Glibc
#endif

extension EventLoop {
    /// Moves a connection forward as far as it can go: parses buffered input, reads more while
    /// the socket has bytes, and dispatches each complete request in turn.
    func drive(_ connection: Connection) {
        while connection.canProcess {
            if !connection.input.isEmpty && !connection.inputNeedsMore {
                let pending = connection.input
                connection.input.removeAll(keepingCapacity: true)
                pending.withUnsafeBytes { process(connection, $0) }
                continue
            }
            guard connection.readable else { return }
            let count = recv(connection.fd, readBuffer.baseAddress, readBuffer.count, 0)
            if count > 0 {
                connection.requestBytes += count
                if count < readBuffer.count { connection.readable = false }
                let bytes = UnsafeRawBufferPointer(rebasing: readBuffer[0..<count])
                if connection.input.isEmpty {
                    process(connection, bytes)
                } else {
                    connection.input.append(contentsOf: bytes)
                    connection.inputNeedsMore = false
                }
            } else if count == 0 {
                closeConnection(connection)
                return
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                connection.readable = false
                return
            } else if errno != EINTR {
                closeConnection(connection)
                return
            }
        }
        if connection.busy, connection.readable, !connection.closed {
            // The client closed while its request is in flight: finish the response, then close.
            peekForEOF(connection)
        }
    }

    /// Parses as many requests from `bytes` as the connection may take; keeps the rest in `input`.
    private func process(_ connection: Connection, _ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while connection.canProcess {
            let result = connection.parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            switch result {
            case .complete(let head, let body, let consumed):
                offset += consumed
                dispatch(connection, head: head, body: body)
            case .incomplete(let consumed):
                offset += consumed
                connection.inputNeedsMore = true
                triageHead(connection)
                if connection.parser.takeContinueRequest() {
                    if connection.headVerdict == true, let head = connection.parser.pendingHead {
                        // Refused from its head, and the client holds its body back until asked:
                        // it is answered without being asked, and the connection then closes.
                        dispatchWithoutBody(connection, head: head)
                        return
                    }
                    connection.output.append(contentsOf: ResponseSerializer.continueLine)
                    markDirty(connection)
                }
                armReadTimer(connection)
                keep(bytes[offset...], in: connection)
                return
            case .invalid(let error):
                ResponseSerializer.writeError(error.status, into: &connection.output, date: date.line)
                connection.move(to: .closing)
                markDirty(connection)
                return
            }
        }
        keep(bytes[offset...], in: connection)
    }

    private func keep(_ rest: Slice<UnsafeRawBufferPointer>, in connection: Connection) {
        guard !rest.isEmpty else { return }
        connection.input.append(contentsOf: rest)
    }

    /// After input that did not complete a request: the head keeps its deadline (set at its first
    /// byte), a body gets the earliest of its deadlines, recomputed as bytes arrive.
    private func armReadTimer(_ connection: Connection) {
        if connection.parser.isReadingBody {
            if connection.timer != .body {
                connection.timer = .body
                connection.bodyStarted = now
            }
            connection.lastBodyByte = now
            connection.deadline = bodyDeadline(connection).at
        } else if connection.parser.hasPartialRequest && connection.timer != .header {
            connection.timer = .header
            connection.deadline = now + Int64(state.configuration.headerReadTimeout.wholeMilliseconds)
            queueReading(connection)
        }
    }

    /// Starts the handler for one request, or, when `ServerConfiguration.lowPriority` names it,
    /// queues it (body dropped) for `serveLowPriority`. A handler runs synchronously until its
    /// first suspension.
    private func dispatch(_ connection: Connection, head: HTTPRequestHead, body: [UInt8]) {
        connection.move(to: .serving)
        connection.timer = .none
        connection.inputNeedsMore = false
        connection.keepAlive = head.keepAlive && !draining
        var parsed = ParsedRequest(
            request: Request(
                method: head.method,
                target: head.target,
                version: head.version,
                headers: head.headers,
                origin: state.configuration.trustedProxies.origin(peer: connection.peer, headers: head.headers)
            ),
            http10KeepAlive: head.version == .http10 && connection.keepAlive,
            omitBody: head.method == .head
        )
        let low = connection.headVerdict ?? isLowPriority(parsed.request)
        connection.headVerdict = nil
        if low {
            parsed.request.bodyDropped = true
            connection.deferred = parsed
            lowPriority.append(connection)
            return
        }
        parsed.request.body = body
        start(connection, parsed)
    }

    private func isLowPriority(_ request: Request) -> Bool { state.configuration.lowPriority?(request) ?? false }

    /// A low-priority request that sent `Expect: 100-continue` and is waiting: RFC 9110 §10.1.1 lets
    /// a server answer with the final status instead of `100 (Continue)`. Its body is never asked
    /// for, so the connection cannot carry another request (the client may still send the body, or
    /// not): the answer says `Connection: close`, and the lingering close reads and drops whatever
    /// follows. The request waits its turn like any other low-priority one.
    private func dispatchWithoutBody(_ connection: Connection, head: HTTPRequestHead) {
        connection.move(to: .serving)
        connection.timer = .none
        connection.inputNeedsMore = false
        connection.keepAlive = false
        connection.headVerdict = nil
        var request = Request(
            method: head.method, target: head.target, version: head.version, headers: head.headers,
            origin: state.configuration.trustedProxies.origin(peer: connection.peer, headers: head.headers))
        request.bodyDropped = true
        connection.deferred = ParsedRequest(request: request, http10KeepAlive: false, omitBody: head.method == .head)
        lowPriority.append(connection)
    }

    /// While a body is still arriving: asks once whether its request is low priority (from the
    /// head alone), and if it is, stops keeping the body.
    private func triageHead(_ connection: Connection) {
        guard connection.headVerdict == nil, state.configuration.lowPriority != nil,
            let head = connection.parser.pendingHead
        else { return }
        let request = Request(
            method: head.method, target: head.target, version: head.version, headers: head.headers,
            origin: state.configuration.trustedProxies.origin(peer: connection.peer, headers: head.headers))
        let low = isLowPriority(request)
        connection.headVerdict = low
        if low { connection.parser.dropBody() }
    }

    /// Hands one parsed request to the responder.
    private func start(_ connection: Connection, _ parsed: ParsedRequest) {
        let (http10KeepAlive, omitBody) = (parsed.http10KeepAlive, parsed.omitBody)
        switch state.responder(parsed.request) {
        case .now(let response):
            connection.inDispatch = true
            complete(connection, response, http10KeepAlive: http10KeepAlive, omitBody: omitBody)
            connection.inDispatch = false
        case .later(let work):
            connection.inDispatch = true
            Task.immediate(executorPreference: self) {
                let response = await work()
                self.complete(connection, response, http10KeepAlive: http10KeepAlive, omitBody: omitBody)
            }
            connection.inDispatch = false
        }
    }

    /// Whether low-priority requests are waiting.
    var hasLowPriorityWork: Bool { lowPriorityNext < lowPriority.count }

    /// Runs once per round, after every ready connection was served: answers the oldest waiting
    /// low-priority requests, at most `lowPriorityPerRound`. Whatever a flood of them costs, the
    /// other clients' work waits for at most that many answers per round. A connection answered
    /// here goes on with its next request at once; a low-priority one joins the back of the queue.
    func serveLowPriority() {
        var budget = max(1, state.configuration.lowPriorityPerRound)
        while budget > 0, lowPriorityNext < lowPriority.count {
            let connection = lowPriority[lowPriorityNext]
            lowPriorityNext += 1
            guard !connection.closed, let parsed = connection.deferred else { continue }
            connection.deferred = nil
            budget -= 1
            start(connection, parsed)
            if !connection.busy { drive(connection) }
        }
        if lowPriorityNext == lowPriority.count {
            lowPriority.removeAll(keepingCapacity: true)
            lowPriorityNext = 0
        } else if lowPriorityNext >= 1024 {
            lowPriority.removeFirst(lowPriorityNext)
            lowPriorityNext = 0
        }
    }

    /// Queues a finished response. Runs on the loop thread (see `dispatch`).
    private func complete(_ connection: Connection, _ response: Response, http10KeepAlive: Bool, omitBody: Bool) {
        guard !connection.closed, !stopped.load(ordering: .acquiring) else { return }
        let close = !connection.keepAlive || draining
        ResponseSerializer.write(
            response,
            into: &connection.output,
            date: date.line,
            close: close,
            http10KeepAlive: http10KeepAlive && !close,
            omitBody: omitBody
        )
        connection.move(to: close ? .closing : .reading)
        connection.timer = .keepAlive
        connection.deadline = now + Int64(state.configuration.keepAliveTimeout.wholeMilliseconds)
        queueIdle(connection)
        markDirty(connection)
        if !connection.inDispatch { drive(connection) }
    }

    func markDirty(_ connection: Connection) {
        guard !connection.dirty else { return }
        connection.dirty = true
        dirty.append(connection)
    }

    func flushDirty() {
        while !dirty.isEmpty {
            let batch = dirty
            dirty.removeAll(keepingCapacity: true)
            for connection in batch {
                connection.dirty = false
                if !connection.closed { flush(connection) }
            }
        }
    }

    /// Writes pending output; on a full socket waits for EPOLLOUT with the write timer armed.
    func flush(_ connection: Connection) {
        while connection.hasPendingOutput {
            let sent = connection.output.withUnsafeBytes { buffer in
                send(
                    connection.fd,
                    buffer.baseAddress! + connection.outputOffset,
                    buffer.count - connection.outputOffset,
                    Int32(MSG_NOSIGNAL)
                )
            }
            if sent > 0 {
                connection.outputOffset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                connection.writeBlocked = true
                connection.timer = .write
                connection.deadline = now + Int64(state.configuration.writeTimeout.wholeMilliseconds)
                return
            } else if sent < 0 && errno == EINTR {
                continue
            } else {
                closeConnection(connection)
                return
            }
        }
        let wasBlocked = connection.writeBlocked
        connection.writeBlocked = false
        if connection.output.capacity > 64 * 1024 {
            connection.output = []
        } else {
            connection.output.removeAll(keepingCapacity: true)
        }
        connection.outputOffset = 0
        if connection.closeAfterWrite && !connection.busy {
            beginLingeringClose(connection)
            return
        }
        if wasBlocked && connection.timer == .write {
            connection.timer = .keepAlive
            connection.deadline = now + Int64(state.configuration.keepAliveTimeout.wholeMilliseconds)
            queueIdle(connection)
        }
        // Output no longer holds processing back: continue with buffered or readable input.
        drive(connection)
    }

    /// Half-closes and reads until the client closes (or the linger timer fires), so unread
    /// request bytes do not turn the final response into a reset.
    private func beginLingeringClose(_ connection: Connection) {
        connection.move(to: .lingering)
        shutdown(connection.fd, Int32(SHUT_WR))
        connection.timer = .linger
        connection.deadline = now + 2_000
        connection.readable = true
        discardInput(connection)
    }

    func discardInput(_ connection: Connection) {
        while true {
            let count = recv(connection.fd, readBuffer.baseAddress, readBuffer.count, 0)
            if count > 0 { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            if count < 0 && errno == EINTR { continue }
            closeConnection(connection)
            return
        }
    }

    /// While a handler runs, notice a client that hung up without consuming its next request.
    private func peekForEOF(_ connection: Connection) {
        var byte: UInt8 = 0
        let count = recv(connection.fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count == 0 {
            connection.readable = false
            connection.keepAlive = false
        } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
            connection.readable = false
        }
    }

    func closeConnection(_ connection: Connection) {
        guard !connection.closed else { return }
        connection.move(to: .closed)
        close(connection.fd)
        if Int(connection.fd) < connections.count, connections[Int(connection.fd)] === connection {
            connections[Int(connection.fd)] = nil
        }
        connectionCount -= 1
        state.connectionCount.wrappingSubtract(1, ordering: .relaxed)
        if let block = connection.countedBlock { state.perAddress?.release(block) }
        connection.input = []
        connection.output = []
        connection.deferred = nil
    }
}
