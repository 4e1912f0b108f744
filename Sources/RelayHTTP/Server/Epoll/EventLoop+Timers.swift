extension EventLoop {
    /// Closes connections whose deadline passed. A request that is too slow to arrive gets 408
    /// first; idle keep-alive, stalled writes and lingering closes are just closed.
    func sweepTimers() {
        for case let connection? in connections where connection.timer != .none && now >= connection.deadline {
            switch connection.timer {
            case .header, .body:
                if connection.parser.hasPartialRequest || !connection.input.isEmpty {
                    state.report(.timedOut(connection.timer == .header ? .head : bodyDeadline(connection).limit))
                    connection.timer = .none
                    ResponseSerializer.writeError(.requestTimeout, into: &connection.output, date: date.line)
                    connection.closeAfterWrite = true
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
    }

    /// The earliest of a body's deadlines and the limit it stands for: the idle timeout after the
    /// last byte, the total from the end of the head, and the minimum rate (after the grace period,
    /// one more second for every `bodyMinimumBytesPerSecond` bytes received). O(1): no scan.
    func bodyDeadline(_ connection: Connection) -> (at: Int64, limit: ServerEvent.Timeout) {
        // Field by field: copying the whole configuration would retain its closure and arrays on every read.
        var earliest = (
            at: connection.lastBodyByte + Int64(state.configuration.bodyIdleTimeoutMilliseconds),
            limit: ServerEvent.Timeout.bodyIdle
        )
        let total = connection.bodyStarted + Int64(state.configuration.bodyTimeoutMilliseconds)
        if total <= earliest.at { earliest = (total, .bodyDeadline) }
        let minimumRate = Int64(state.configuration.bodyMinimumBytesPerSecond)
        if minimumRate > 0 {
            let earned = Int64(connection.parser.bodyBytesReceived) * 1000 / minimumRate
            let rate = connection.bodyStarted + Int64(state.configuration.bodyRateGraceMilliseconds) + earned
            if rate < earliest.at { earliest = (rate, .bodyRate) }
        }
        return earliest
    }
}
