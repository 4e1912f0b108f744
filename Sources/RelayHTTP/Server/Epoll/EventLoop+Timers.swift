extension EventLoop {
    /// Closes connections whose deadline passed. A request that is too slow to arrive gets 408
    /// first; idle keep-alive, stalled writes and lingering closes are just closed.
    func sweepTimers() {
        for case let connection? in connections where connection.timer != .none && now >= connection.deadline {
            switch connection.timer {
            case .header, .bodyIdle:
                if connection.parser.hasPartialRequest || !connection.input.isEmpty {
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
}
