import Foundation
import RelayEmulator
import RelayHTTP
import RelayTestSupport

@testable import RelayService

/// `mustdo-relay serve` as a child process on a real service directory (SQLite file, secret files
/// from `keys generate`), talking to the CloudKit emulator in this process, so a test can connect
/// users through the real OAuth flow (`OAuthDriver`) and then run `mustdo-relayctl` against the
/// same settings, as an operator would beside a running relay.
final class ServedRelay: @unchecked Sendable {
    // @unchecked Sendable: `relay` is replaced only by `restart`, which tests call from one task.
    let service: ServiceDirectory
    let emulator: Emulator
    let issuer: String
    let port: Int
    let http: HTTPClient
    let environment: [String: String]
    private(set) var relay: ChildProcess
    private(set) var metricsPort = 0

    var mcp: MCPCalls { MCPCalls(http: http, url: issuer + "/mcp") }

    init(extra: [String: String] = [:], environment: [String: String] = [:]) async throws {
        port = try freePort()
        issuer = "http://127.0.0.1:\(port)"
        emulator = try Emulator(
            configuration: EmulatorConfiguration(
                apiToken: "test-api-token", container: "iCloud.test.mustdo",
                callbackURL: issuer + "/oauth/apple/callback"))
        try emulator.start()
        var settings = [
            "RELAY_PORT": String(port), "RELAY_ISSUER": issuer, "RELAY_CLOUDKIT_BASE_URL": emulator.baseURL,
            "RELAY_CLOUDKIT_ENVIRONMENT": "production",
        ]
        for (key, value) in extra { settings[key] = value }
        service = try await ServiceDirectory(extra: settings)
        self.environment = environment
        http = try HTTPClient()
        relay = try ChildProcess(
            product: "mustdo-relay", ["serve", "--config", service.configFile], environment: environment)
        try await waitUntilListening()
    }

    private func waitUntilListening() async throws {
        _ = try await relay.waitForOutput(matching: #"listening on http://127\.0\.0\.1:(\d+)"#, timeout: .seconds(30))
        metricsPort = Int(try await relay.waitForOutput(matching: #"metrics: http://127\.0\.0\.1:(\d+)"#))!
    }

    /// `mustdo-relayctl ARGUMENTS --config <the service's env file>`.
    func relayctl(_ arguments: [String], stdin: FileHandle? = nil) async throws -> Relayctl.Result {
        try await Relayctl.run(arguments + ["--config", service.configFile], environment: environment, stdin: stdin)
    }

    /// Stops the relay (SIGTERM) and starts it again on the same port, as after a key rotation.
    func restart() async throws {
        try await stopRelay()
        relay = try ChildProcess(
            product: "mustdo-relay", ["serve", "--config", service.configFile], environment: environment)
        try await waitUntilListening()
    }

    func stopRelay() async throws {
        relay.signal(SIGTERM)
        let status = try await relay.waitForExit(timeout: .seconds(40))
        guard status == 0 else { throw ChildProcess.ChildProcessError.missing("serve exited \(status): \(relay.text)") }
    }

    func metrics() throws -> String { try httpGet(port: metricsPort, path: "/metrics").body }

    /// Waits until `/metrics` has a line starting with `prefix`, and returns that line.
    func waitForMetric(_ prefix: String, timeout: Duration = .seconds(15)) async throws -> String {
        var line = ""
        try await waitUntil("a metric line starting with \(prefix)", timeout: timeout, every: .milliseconds(100)) {
            line = try metrics().split(separator: "\n").first { $0.hasPrefix(prefix) }.map(String.init) ?? ""
            return !line.isEmpty
        }
        return line
    }

    /// Stops everything and removes the service directory.
    func finish() async {
        if relay.isRunning { try? await stopRelay() }
        emulator.shutdown()
        await emulator.waitUntilStopped()
        http.shutdown()
        service.remove()
    }
}
