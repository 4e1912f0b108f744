import Foundation
import RelayHTTP

/// Every setting of the relay, read from `RELAY_*` variables (env file first, then the process
/// environment, which wins). `config/relay.env.example` documents each one.
public struct Configuration: Sendable {
    /// Listen address.
    public var host: String = "127.0.0.1"
    /// Listen port (0 = any free port).
    public var port: Int = 8080
    /// HTTP server settings derived from the `RELAY_HTTP_*` variables.
    public var server = ServerConfiguration()
    /// Address of the separate `/metrics` listener.
    public var metricsHost: String = "127.0.0.1"
    /// Port of the `/metrics` listener; nil disables it.
    public var metricsPort: Int? = 9464
    /// Least severe log level written.
    public var logLevel: LogEvent.Level = .info

    /// Defaults.
    public init() {}

    /// A problem with one setting, phrased as what to fix.
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public let setting: String
        public let message: String
        public var description: String { "\(setting): \(message)" }
    }

    /// Reads the settings from `variables`, collecting every problem rather than stopping at the first.
    public static func load(from variables: [String: String]) throws(ConfigurationErrors) -> Configuration {
        var reader = SettingsReader(variables)
        var configuration = Configuration()
        configuration.host = reader.string("RELAY_HOST", default: "127.0.0.1")
        configuration.port = reader.integer("RELAY_PORT", default: 8080, range: 0...65535)
        var server = ServerConfiguration(host: configuration.host, port: configuration.port)
        server.eventLoops = reader.integer("RELAY_HTTP_EVENT_LOOPS", default: server.eventLoops, range: 1...256)
        server.limits.maxRequestLineBytes = reader.integer(
            "RELAY_HTTP_MAX_REQUEST_LINE_BYTES", default: 8192, range: 256...1_048_576)
        server.limits.maxHeaderBytes = reader.integer(
            "RELAY_HTTP_MAX_HEADER_BYTES", default: 16384, range: 1024...1_048_576)
        server.limits.maxHeaderCount = reader.integer("RELAY_HTTP_MAX_HEADER_COUNT", default: 100, range: 8...10_000)
        server.limits.maxBodyBytes = reader.integer(
            "RELAY_HTTP_MAX_BODY_BYTES", default: 1_048_576, range: 1024...67_108_864)
        server.headerReadTimeoutMilliseconds = reader.seconds("RELAY_HTTP_HEADER_TIMEOUT", default: 10)
        server.bodyIdleTimeoutMilliseconds = reader.seconds("RELAY_HTTP_BODY_IDLE_TIMEOUT", default: 10)
        server.keepAliveTimeoutMilliseconds = reader.seconds("RELAY_HTTP_KEEPALIVE_TIMEOUT", default: 60)
        server.writeTimeoutMilliseconds = reader.seconds("RELAY_HTTP_WRITE_TIMEOUT", default: 30)
        server.drainTimeoutMilliseconds = reader.seconds("RELAY_HTTP_DRAIN_TIMEOUT", default: 30)
        server.maxConnections = reader.integer("RELAY_HTTP_MAX_CONNECTIONS", default: 20_000, range: 1...1_000_000)
        server.trustedProxies = TrustedProxies(reader.addressRanges("RELAY_TRUSTED_PROXIES"))
        configuration.server = server
        configuration.metricsHost = reader.string("RELAY_METRICS_HOST", default: "127.0.0.1")
        if reader.raw("RELAY_METRICS_PORT") == "off" {
            configuration.metricsPort = nil
        } else {
            configuration.metricsPort = reader.integer("RELAY_METRICS_PORT", default: 9464, range: 0...65535)
        }
        configuration.logLevel = reader.choice(
            "RELAY_LOG_LEVEL", default: .info,
            choices: ["debug": .debug, "info": .info, "warning": .warning, "error": .error])
        if !reader.problems.isEmpty { throw ConfigurationErrors(problems: reader.problems) }
        return configuration
    }

    /// Reads `--config FILE` (if given) and the process environment; the environment wins.
    public static func load(configFile: String?, environment: [String: String]) throws -> Configuration {
        var variables = try configFile.map(EnvFile.load) ?? [:]
        for (key, value) in environment where key.hasPrefix("RELAY_") { variables[key] = value }
        return try load(from: variables)
    }
}

/// Every problem found in one configuration.
public struct ConfigurationErrors: Error, CustomStringConvertible {
    public let problems: [Configuration.Problem]
    public var description: String { problems.map { "  - \($0)" }.joined(separator: "\n") }
}
