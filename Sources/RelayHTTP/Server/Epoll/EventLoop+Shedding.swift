extension EventLoop {
    /// Which connections a full table gives up, in order (`LoadShedding`).
    enum Victim {
        /// An idle keep-alive connection.
        case idle
        /// A connection still sending its head or body.
        case slowRequest
    }

    /// Notes that `connection` just became idle (its response written, nothing of the next
    /// request yet): it joins the back of the idle queue. Entries are checked when taken, so a
    /// connection that moved on leaves a stale entry behind rather than costing a removal.
    func queueIdle(_ connection: Connection) {
        connection.idleSince = now
        idleQueue.append((connection, now))
        compactQueuesIfNeeded()
    }

    /// Notes that a request began arriving on `connection` (a new connection, or the first byte
    /// after an idle keep-alive period).
    func queueReading(_ connection: Connection) {
        connection.requestStarted = now
        connection.requestBytes = 0
        readingQueue.append((connection, now))
        compactQueuesIfNeeded()
    }

    /// Whether `connection` is idle in the sense of the idle queue entry stamped `stamp`.
    func isIdle(_ connection: Connection, stamp: Int64) -> Bool {
        !connection.closed && !connection.busy && connection.timer == .keepAlive && connection.idleSince == stamp
            && !connection.hasPendingOutput && connection.input.isEmpty && !connection.parser.hasPartialRequest
            && !connection.lingering && !connection.closeAfterWrite
    }

    /// Whether `connection` is still sending the request its reading entry stamped `stamp` names.
    func isReading(_ connection: Connection, stamp: Int64) -> Bool {
        !connection.closed && !connection.busy && (connection.timer == .header || connection.timer == .body)
            && connection.requestStarted == stamp && !connection.lingering && !connection.closeAfterWrite
            && connection.deferred == nil
    }

    /// Closes one of this loop's connections of `kind` to make room; false when it has none to give.
    func shedOne(_ kind: Victim) -> Bool {
        switch kind {
        case .idle:
            while idleHead < idleQueue.count {
                let (connection, stamp) = idleQueue[idleHead]
                guard isIdle(connection, stamp: stamp) else {
                    idleHead += 1
                    continue
                }
                // The oldest idle connection is too fresh: so is every later one.
                guard now - stamp >= LoadShedding.minimumIdleAge else { return false }
                idleHead += 1
                shed(connection, .idleKeepAlive)
                return true
            }
            return false
        case .slowRequest:
            // The oldest few requests still arriving; of those, the one that has sent least per second.
            var index = readingHead
            var slowest: (connection: Connection, rate: Double)?
            var compared = 0
            while index < readingQueue.count, compared < LoadShedding.slowCandidates {
                let (connection, stamp) = readingQueue[index]
                guard isReading(connection, stamp: stamp) else {
                    if index == readingHead { readingHead += 1 }
                    index += 1
                    continue
                }
                let age = now - stamp
                guard age >= LoadShedding.minimumReadingAge else { break }
                let rate = Double(connection.requestBytes) * 1000 / Double(age)
                if slowest == nil || rate < slowest!.rate { slowest = (connection, rate) }
                compared += 1
                index += 1
            }
            guard let slowest else { return false }
            shed(slowest.connection, .slowRequest)
            return true
        }
    }

    private func shed(_ connection: Connection, _ reason: ServerEvent.Shed) {
        state.report(.shed(reason))
        closeConnection(connection)
        // Keeps the count the other loops read honest until the next sweep recounts.
        board.forget(reason)
    }

    /// Makes room for one new connection at the cap, for this loop's accept: the cheapest connection
    /// of the whole process goes (idle here, idle on another loop, slow here, slow on another
    /// loop). True when one was closed here or another loop was asked to close one.
    func makeRoom() -> Bool {
        if shedOne(.idle) { return true }
        let others = state.shedBoards.withLock { $0 }.filter { $0 !== board }
        if others.contains(where: { $0.ask(idleOnly: true) }) { return true }
        if shedOne(.slowRequest) { return true }
        return others.contains { $0.ask(idleOnly: false) }
    }

    /// Closes the connections other loops asked this one to give up (their new clients are
    /// already admitted, a little over the cap until then).
    func serveShedRequests() {
        var asked = board.requested.exchange(0, ordering: .relaxed)
        while asked > 0, shedOne(.idle) || shedOne(.slowRequest) { asked -= 1 }
    }

    /// Drops stale queue entries once they outnumber the live connections (amortised O(1) per entry).
    private func compactQueuesIfNeeded() {
        let limit = 2 * connectionCount + 256
        if idleQueue.count - idleHead > limit || idleHead > limit {
            idleQueue = idleQueue[idleHead...].filter { isIdle($0.0, stamp: $0.1) }
            idleHead = 0
        }
        if readingQueue.count - readingHead > limit || readingHead > limit {
            readingQueue = readingQueue[readingHead...].filter { isReading($0.0, stamp: $0.1) }
            readingHead = 0
        }
    }

    /// Counts this loop's idle and reading connections for the other loops (`ShedBoard`), during the sweep.
    func publishSheddable(idle: Int, reading: Int) {
        board.idle.store(idle, ordering: .relaxed)
        board.reading.store(reading, ordering: .relaxed)
    }
}
