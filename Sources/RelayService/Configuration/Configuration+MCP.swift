import Foundation
import RelayMCP

extension Configuration {
    /// The MCP endpoint's configuration: Host allowlist from the issuer and aliases, Origin
    /// allowlist, instructions for the model, and observability hooks.
    func mcpConfiguration(logger: Logger, metrics: Metrics) -> MCPEndpointConfiguration {
        let calls = metrics.declareCounter(
            "relay_mcp_tool_calls_total", help: "Tool calls by tool and outcome.", labels: ["tool", "outcome"])
        let durations = metrics.declareHistogram(
            "relay_mcp_tool_call_duration_seconds", help: "Tool call duration.", labels: ["tool"])
        var hosts = hostAliases
        if let host = Self.hostAndPort(of: issuer) { hosts.append(host) }
        return MCPEndpointConfiguration(
            serverInfo: MCPServerInfo(name: "mustdo-relay", title: "MustDo Relay", version: RelayCommand.version),
            instructions: Self.instructions,
            allowedHosts: hosts,
            // The server's own origin is always allowed (issue 41): a page the relay itself served
            // is not a cross-site caller, and the official MCP conformance suite's DNS-rebinding
            // scenario expects Host and Origin both equal to the server's to pass. A rebinding page
            // sends its own name as both, and the Host check refuses that name first (421).
            allowedOrigins: allowedOrigins.contains(issuer) ? allowedOrigins : allowedOrigins + [issuer],
            onToolCall: { record in
                calls.increment(record.tool, record.outcome)
                durations.observe(record.duration.seconds, record.tool)
                logger.log(.toolCall(record))
            },
            onError: { tool, error in logger.log(.toolFailed(tool, error)) })
    }

    static let instructions = """
        MustDo to-dos live in the user's own iCloud and ring as alarms on their iPhone. Call get_me \
        first in every conversation before working with dates: it returns today's date, the user's \
        time zone, their default alarm time and quiet hours. Times without an offset are wall-clock \
        times in that time zone; a date without a time means the user's default time.
        """

    /// `scheme://host[:port]` of a URL.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
        else { return nil }
        return components.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }

    /// `host[:port]` of a URL, as clients send it in `Host`.
    static func hostAndPort(of url: String) -> String? {
        guard let components = URLComponents(string: url), let host = components.host else { return nil }
        return components.port.map { "\(host):\($0)" } ?? host
    }
}

extension LogEvent {
    /// `mcp.tool_call`: the tool, its outcome and duration (no arguments, no result), the same line
    /// for the HTTP endpoint and `mustdo-relay local`.
    static func toolCall(_ record: ToolCallRecord) -> LogEvent {
        var event = LogEvent(.info, "mcp.tool_call")
        event.tool = StaticOrRoute(name: record.tool)
        event.outcome = StaticOrRoute(name: record.outcome)
        event.durationMilliseconds = record.duration.seconds * 1000
        return event
    }

    /// `mcp.tool_failed`: a tool threw something the endpoint answers as an internal error (its type only).
    static func toolFailed(_ tool: String, _ error: any Error) -> LogEvent {
        var event = LogEvent(.error, "mcp.tool_failed")
        event.tool = StaticOrRoute(name: tool)
        event.outcome = StaticOrRoute(errorType: error)
        return event
    }
}
