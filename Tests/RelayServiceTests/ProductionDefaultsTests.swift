import RelayHTTP
import Testing

@testable import RelayService

/// One place for every default (issue 38): `Configuration.defaults`, which the demo starts from, is
/// exactly what an operator gets with no setting, per-address cap and deadlines included; the
/// library's own `Configuration()` would have had no per-address cap.
struct ProductionDefaultsTests {
    @Test func theDefaultsAreWhatAnOperatorGetsWithNoSetting() throws {
        let defaults = Configuration.defaults
        let loaded = try Configuration.load(from: [:])
        #expect(defaults.server.maxConnectionsPerAddress == 256)
        #expect(defaults.server.maxConnections == 20_000)
        #expect(defaults.toolCallsPerMinute == 300)
        for (name, value) in [
            ("per address", \ServerConfiguration.maxConnectionsPerAddress),
            ("connections", \ServerConfiguration.maxConnections),
            ("body rate", \ServerConfiguration.bodyMinimumBytesPerSecond),
        ] {
            #expect(defaults.server[keyPath: value] == loaded.server[keyPath: value], "\(name)")
        }
        for (name, value) in [
            ("head", \ServerConfiguration.headerReadTimeout),
            ("body idle", \ServerConfiguration.bodyIdleTimeout),
            ("body", \ServerConfiguration.bodyTimeout),
            ("keep-alive", \ServerConfiguration.keepAliveTimeout),
            ("write", \ServerConfiguration.writeTimeout),
        ] {
            #expect(defaults.server[keyPath: value] == loaded.server[keyPath: value], "\(name)")
        }
        #expect(defaults.server.limits == loaded.server.limits)
        #expect(Configuration().server.maxConnectionsPerAddress == 0, "what the demo used to run with")
    }
}
