import RelayHTTP

/// The descriptor limit as `serve` and `demo` leave it at start-up: the soft limit raised to the
/// hard one (a default soft limit of 1,024 would cap the relay far below `maxConnections`).
package struct DescriptorsAtStart {
    /// The limit in force after raising.
    package let limit: DescriptorLimit
    /// Why raising failed (a sandbox that forbids `setrlimit`, as the systemd unit's filter does;
    /// it sets `LimitNOFILE=` instead), when it did.
    let failure: SocketError?

    /// Raises the soft limit as far as it goes.
    package static func raise() -> DescriptorsAtStart {
        do {
            return DescriptorsAtStart(limit: try DescriptorLimit.raiseSoftLimit(), failure: nil)
        } catch {
            return DescriptorsAtStart(limit: DescriptorLimit.current(), failure: error)
        }
    }

    /// Logs what was chosen: always the connection limit, and a warning when the limit could not
    /// be raised or the default `maxConnections` had to be lowered.
    package func log(_ budget: ConnectionBudget, to logger: Logger) {
        var chosen = LogEvent(.info, "http.connection_limit")
        chosen.count = budget.maxConnections
        logger.log(chosen)
        if failure != nil && limit.soft < limit.hard {
            var warning = LogEvent(.warning, "http.descriptor_limit_not_raised")
            warning.count = limit.soft
            logger.log(warning)
        }
        if let lowered = budget.loweredFrom {
            // Every default start lowers 20,000 a little to fit a 20,000-descriptor limit with the
            // reserve kept: info. A warning only when the default lost more than a tenth.
            let level: LogEvent.Level = budget.maxConnections * 10 < lowered * 9 ? .warning : .info
            var warning = LogEvent(level, "http.max_connections_lowered")
            warning.count = budget.maxConnections
            logger.log(warning)
        }
    }
}
