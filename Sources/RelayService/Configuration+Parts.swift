import Foundation
import RelayMCP
import RelayOAuth

extension Configuration {
    /// The authorization server's configuration; throws when the OAuth settings are unusable.
    public func oauthConfiguration() throws(ConfigurationErrors) -> OAuthConfiguration {
        var result = OAuthConfiguration(issuer: issuer)
        var problems: [Problem] = []
        if let patterns = oauth.redirectAllowlist {
            if let invalid = RedirectAllowlist.invalidPattern(in: patterns) {
                problems.append(
                    Problem(
                        setting: "RELAY_OAUTH_REDIRECT_ALLOWLIST",
                        message:
                            "invalid pattern \"\(invalid)\": write scheme://host[:port or :*]/path, with * for one path segment and a final ** for any rest (empty keeps the defaults)"
                    ))
            } else if let allowlist = RedirectAllowlist(patterns) {
                result.redirectAllowlist = allowlist
            }
        }
        result.lifetimes.accessToken = oauth.accessTokenTTL
        result.lifetimes.refreshToken = oauth.refreshTokenTTL
        result.lifetimes.grant = oauth.grantLifetime
        result.lifetimes.code = oauth.codeTTL
        result.lifetimes.pendingRequest = oauth.pendingTTL
        result.lifetimes.consentWindow = oauth.consentWindow
        result.lifetimes.refreshGrace = oauth.refreshGrace
        result.lifetimes.unusedClient = oauth.unusedClientTTL
        result.registrationRateLimit = OAuthConfiguration.RateLimit(requests: oauth.registrationsPerHour, window: 3600)
        result.maximumUnusedClients = oauth.maximumUnusedClients
        result.tokenFailureLimit = OAuthConfiguration.RateLimit(requests: oauth.tokenFailuresPerMinute, window: 60)
        result.lifetimes.metadataDocumentStaleIfError = oauth.metadataStaleIfError
        result.allowsLoopbackMetadataDocuments = oauth.allowLoopbackMetadataDocuments
        if let origin = Self.origin(of: cloudKit.baseURL), !cloudKit.baseURL.hasPrefix("https://api.apple-cloudkit.com")
        {
            // The emulator (demo, tests) hosts the sign-in page itself: forms must be allowed to go there.
            result.signInOrigins.append(origin)
        }
        for problem in result.problems() {
            if problem.contains("issuer") {
                problems.append(
                    Problem(
                        setting: "RELAY_ISSUER",
                        message:
                            "\(problem): set it to the public base URL, like https://relay.example.com (got \"\(issuer)\")"
                    ))
            } else {
                problems.append(Problem(setting: "RELAY_OAUTH_*", message: problem))
            }
        }
        if !problems.isEmpty { throw ConfigurationErrors(problems: problems) }
        return result
    }

    /// The MCP endpoint's configuration: Host allowlist from the issuer and aliases, Origin
    /// allowlist, instructions for the model, and observability hooks.
    func mcpConfiguration(logger: Logger, metrics: Metrics) -> MCPEndpointConfiguration {
        metrics.declareCounter(
            "relay_mcp_tool_calls_total", help: "Tool calls by tool and outcome.", labels: ["tool", "outcome"])
        metrics.declareHistogram("relay_mcp_tool_call_duration_seconds", help: "Tool call duration.", labels: ["tool"])
        var hosts = hostAliases
        if let host = Self.hostAndPort(of: issuer) { hosts.append(host) }
        return MCPEndpointConfiguration(
            serverInfo: MCPServerInfo(name: "mustdo-relay", title: "MustDo Relay", version: RelayCommand.version),
            instructions: Self.instructions,
            allowedHosts: hosts,
            allowedOrigins: allowedOrigins,
            onToolCall: { record in
                let seconds = record.duration.seconds
                metrics.increment("relay_mcp_tool_calls_total", [record.tool, record.outcome])
                metrics.observe("relay_mcp_tool_call_duration_seconds", [record.tool], seconds)
                var event = LogEvent(.info, "mcp.tool_call")
                event.tool = StaticOrRoute(name: record.tool)
                event.outcome = StaticOrRoute(name: record.outcome)
                event.durationMilliseconds = seconds * 1000
                logger.log(event)
            },
            onError: { tool, error in
                var event = LogEvent(.error, "mcp.tool_failed")
                event.tool = StaticOrRoute(name: tool)
                event.outcome = StaticOrRoute(errorType: error)
                logger.log(event)
            })
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

extension Configuration {
    /// Checks a service configuration beyond syntax: an issuer, a CloudKit container, usable
    /// OAuth settings. Secret files and the store are checked when they are opened.
    public func validateForService() throws(ConfigurationErrors) {
        var problems: [Problem] = []
        if issuer.isEmpty {
            problems.append(Problem(setting: "RELAY_ISSUER", message: "must be set to the public https base URL"))
        }
        if cloudKit.container.isEmpty {
            problems.append(
                Problem(setting: "RELAY_CLOUDKIT_CONTAINER", message: "must be set (e.g. iCloud.com.example.app)"))
        }
        do {
            _ = try oauthConfiguration()
        } catch {
            problems += error.problems
        }
        if !problems.isEmpty { throw ConfigurationErrors(problems: problems) }
    }
}
