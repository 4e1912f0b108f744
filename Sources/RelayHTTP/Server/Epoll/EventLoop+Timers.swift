import RelaySync

extension EventLoop {
    /// Closes connections whose deadline passed. A request that is too slow to arrive gets 408
    /// first; idle keep-alive, stalled writes and lingering closes are just closed. The idle and
    /// read deadlines shrink as the process's table fills (`LoadShedding.deadlineScale`). Also
    /// counts what this loop could shed, for the other loops.
    func sweepTimers() {
        let scale = LoadShedding.deadlineScale(
            open: state.connectionCount.load(ordering: .relaxed), capacity: state.configuration.maxConnections)
        var idle = 0
        var reading = 0
        for case let connection? in connections where connection.timer != .none {
            if !connection.busy {
                switch connection.timer {
                // Only what `shedOne` would take: idle or reading long enough.
                case .keepAlive where now - connection.idleSince >= LoadShedding.minimumIdleAge: idle += 1
                case .header where now - connection.requestStarted >= LoadShedding.minimumReadingAge,
                    .body where now - connection.requestStarted >= LoadShedding.minimumReadingAge:
                    reading += 1
                default: break
                }
            }
            guard now >= (scale < 1 ? shrunkDeadline(connection, scale: scale) : connection.deadline) else { continue }
            switch connection.timer {
            case .header, .body:
                if connection.parser.hasPartialRequest || !connection.input.isEmpty {
                    state.report(.timedOut(connection.timer == .header ? .head : bodyDeadline(connection).limit))
                    connection.timer = .none
                    ResponseSerializer.writeError(.requestTimeout, into: &connection.output, date: date.line)
                    connection.move(to: .closing)
                    flush(connection)
                } else {
                    closeConnection(connection)
                }
            case .keepAlive, .write, .linger:
                closeConnection(connection)
            case .none:
                break
            }
        }
        publishSheddable(idle: idle, reading: reading)
    }

    /// `connection`'s deadline with the time it allows scaled by `scale`, for the timers that let a
    /// client hold a slot without being served (head, body, keep-alive); the others as they are.
    private func shrunkDeadline(_ connection: Connection, scale: Double) -> Int64 {
        let start: Int64
        switch connection.timer {
        case .header: start = connection.requestStarted
        case .body: start = connection.bodyStarted
        case .keepAlive: start = connection.idleSince
        case .none, .write, .linger: return connection.deadline
        }
        guard connection.deadline > start else { return connection.deadline }
        return start + Int64(Double(connection.deadline - start) * scale)
    }

    /// The earliest of a body's deadlines and the limit it stands for: the idle timeout after the
    /// last byte, the total from the end of the head, and the minimum rate (after the grace period,
    /// one more second for every `bodyMinimumBytesPerSecond` bytes received). O(1): no scan.
    func bodyDeadline(_ connection: Connection) -> (at: Int64, limit: ServerEvent.Timeout) {
        var earliest = (
            at: connection.lastBodyByte + Int64(state.configuration.bodyIdleTimeout.wholeMilliseconds),
            limit: ServerEvent.Timeout.bodyIdle
        )
        let total = connection.bodyStarted + Int64(state.configuration.bodyTimeout.wholeMilliseconds)
        if total <= earliest.at { earliest = (total, .bodyDeadline) }
        let minimumRate = Int64(state.configuration.bodyMinimumBytesPerSecond)
        if minimumRate > 0 {
            let earned = Int64(connection.parser.bodyBytesReceived) * 1000 / minimumRate
            let rate = connection.bodyStarted + Int64(state.configuration.bodyRateGrace.wholeMilliseconds) + earned
            if rate < earliest.at { earliest = (rate, .bodyRate) }
        }
        return earliest
    }
}
