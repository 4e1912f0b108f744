import Foundation
import RelayHTTP
import RelayTestSupport

/// One service setup shared by any number of `mustdo-relay serve` processes: a directory with an
/// env file, the CloudKit API token file, and every other secret made by `mustdo-relayctl keys
/// generate` (pepper, user-ID key, binding secret), as an operator provisions them once.
struct RelaySetup: Sendable {
    let directory: String
    let configFile: String
    /// Variables given to every instance's process (AWS credentials).
    let environment: [String: String]

    init(emulator: EmulatorProcess, settings: [String: String] = [:], environment: [String: String] = [:])
        async throws
    {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("acceptance-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory + "/secrets", withIntermediateDirectories: true)
        configFile = directory + "/relay.env"
        self.environment = environment
        var all = [
            "RELAY_ISSUER": "http://127.0.0.1",
            "RELAY_METRICS_PORT": "0",
            "RELAY_HTTP_EVENT_LOOPS": "2",
            "RELAY_DATA_DIRECTORY": directory,
            "RELAY_CLOUDKIT_CONTAINER": EmulatorProcess.container,
            "RELAY_CLOUDKIT_ENVIRONMENT": "production",
            "RELAY_CLOUDKIT_BASE_URL": emulator.base,
        ]
        for (key, value) in settings { all[key] = value }
        try all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)\n" }.joined()
            .write(toFile: configFile, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(
            atPath: directory + "/secrets/cloudkit-api-token", contents: Data((EmulatorProcess.apiToken + "\n").utf8),
            attributes: [.posixPermissions: 0o600])
        let generate = try ChildProcess(
            product: "mustdo-relayctl", ["keys", "generate", "--config", configFile], environment: environment)
        guard try await generate.waitForExit() == 0 else {
            throw AcceptanceFailure("keys generate failed: \(generate.text)")
        }
    }

    /// Starts `mustdo-relay serve` on `port` (0: any free port) and waits until it listens.
    func start(port: Int = 0, http: HTTPClient, extra: [String: String] = [:]) async throws -> RelayInstance {
        var variables = environment
        variables["RELAY_PORT"] = String(port)
        for (key, value) in extra { variables[key] = value }
        let child = try ChildProcess(
            product: "mustdo-relay", ["serve", "--config", configFile], environment: variables)
        let listening = try await child.waitForOutput(matching: #"listening on http://127\.0\.0\.1:(\d+)"#)
        let metrics = try await child.waitForOutput(matching: #"metrics: http://127\.0\.0\.1:(\d+)"#)
        return RelayInstance(child: child, port: Int(listening)!, metricsPort: Int(metrics)!, http: http)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// A running `mustdo-relay serve`.
struct RelayInstance: Sendable {
    let child: ChildProcess
    let port: Int
    let metricsPort: Int
    let http: HTTPClient

    /// `http://127.0.0.1:<port>`: where the "load balancer" sends a request for this instance.
    var base: String { "http://127.0.0.1:\(port)" }

    /// `GET /readyz`: status and body.
    func readiness(timeout: Duration = .seconds(20)) async throws -> (status: Int, body: String) {
        let response = try await http.send(ClientRequest(url: base + "/readyz", timeout: timeout))
        return (response.status, response.text)
    }

    /// The value of one metric line (`name{labels}`), 0 when absent.
    func metric(_ series: String) async throws -> Double {
        let response = try await http.send(ClientRequest(url: "http://127.0.0.1:\(metricsPort)/metrics"))
        for line in response.text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? 0
        }
        return 0
    }
}
