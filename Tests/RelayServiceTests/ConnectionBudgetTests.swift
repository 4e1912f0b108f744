import RelayHTTP
import Testing

@testable import RelayService

/// Fitting `maxConnections` into the descriptor limit, and reading the slow-client settings.
struct ConnectionBudgetTests {
    private func configuration(_ variables: [String: String] = [:]) throws -> Configuration {
        try Configuration.load(from: variables)
    }

    @Test func aDefaultThatFitsIsKept() throws {
        let budget = try ConnectionBudget.plan(try configuration(), limit: 65_536)
        #expect(budget == ConnectionBudget(limit: 65_536, reserve: 1024, maxConnections: 20_000, loweredFrom: nil))
        #expect(
            budget.summary(perAddress: 256)
                == "  connections: at most 20000; descriptor limit 65536, 1024 kept for the rest; 256 per client address (IPv6: per /64)"
        )
    }

    @Test func aDefaultThatDoesNotFitIsLoweredLeavingTheReserve() throws {
        let budget = try ConnectionBudget.plan(try configuration(), limit: 20_000)
        #expect(budget.maxConnections == 18_976)
        #expect(budget.loweredFrom == 20_000)
        // A small limit keeps a quarter back rather than all of it.
        let small = try ConnectionBudget.plan(try configuration(), limit: 1024)
        #expect(small.reserve == 256)
        #expect(small.maxConnections == 768)
    }

    @Test func aSetValueThatDoesNotFitIsRefusedWithTheLargestThatWould() throws {
        let set = try configuration(["RELAY_HTTP_MAX_CONNECTIONS": "20000"])
        #expect(set.maxConnectionsIsExplicit)
        #expect(throws: Configuration.Problem.self) { try ConnectionBudget.plan(set, limit: 20_000) }
        do {
            _ = try ConnectionBudget.plan(set, limit: 20_000)
        } catch {
            #expect(error.setting == "RELAY_HTTP_MAX_CONNECTIONS")
            #expect(error.message.contains("set it to at most 18976"))
            #expect(error.message.contains("LimitNOFILE="))
        }
        #expect(try ConnectionBudget.plan(set, limit: 21_024).maxConnections == 20_000)
        #expect(throws: Configuration.Problem.self) { try ConnectionBudget.plan(try configuration(), limit: 64) }
        #expect(try ConnectionBudget.plan(try configuration(), limit: 100).maxConnections == 36)
    }

    @Test func theSlowClientSettingsAreRead() throws {
        let defaults = try configuration()
        #expect(defaults.server.headerReadTimeout == .milliseconds(10_000))
        #expect(defaults.server.bodyTimeout == .milliseconds(120_000))
        #expect(defaults.server.bodyMinimumBytesPerSecond == 500)
        #expect(defaults.server.bodyRateGrace == .milliseconds(10_000))
        #expect(defaults.server.maxConnectionsPerAddress == 256)
        #expect(!defaults.maxConnectionsIsExplicit)
        let set = try configuration([
            "RELAY_HTTP_BODY_TIMEOUT": "30", "RELAY_HTTP_BODY_MIN_RATE": "0",
            "RELAY_HTTP_MAX_CONNECTIONS_PER_ADDRESS": "0",
        ])
        #expect(set.server.bodyTimeout == .milliseconds(30_000))
        #expect(set.server.bodyMinimumBytesPerSecond == 0)
        #expect(set.server.maxConnectionsPerAddress == 0)
        #expect(throws: ConfigurationErrors.self) { try configuration(["RELAY_HTTP_BODY_MIN_RATE": "-1"]) }
        #expect(throws: ConfigurationErrors.self) { try configuration(["RELAY_HTTP_BODY_TIMEOUT": "0"]) }
    }

    @Test func serverEventsAreCountedByReason() {
        let metrics = Metrics()
        let record = ConnectionObserver(metrics: metrics).record
        record(.refused(.perAddress))
        record(.refused(.perAddress))
        record(.timedOut(.bodyRate))
        #expect(metrics.value("relay_http_refused_connections_total", ["per_address"]) == 2)
        #expect(metrics.value("relay_http_request_timeouts_total", ["body_rate"]) == 1)
        #expect(metrics.render().contains(#"relay_http_refused_connections_total{reason="per_address"} 2"#))
    }
}
