import Foundation
import RelayTestSupport

/// A throwaway service setup for child-process tests: a data directory, an env file with the
/// settings `serve` requires, the CloudKit API token file, and every other secret created by
/// `mustdo-relayctl keys generate` (the way an operator does it).
struct ServiceDirectory {
    let path: String
    let configFile: String

    init(extra: [String: String] = [:]) async throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("relay-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        configFile = path + "/relay.env"
        var settings = [
            "RELAY_ISSUER": "http://127.0.0.1",
            "RELAY_PORT": "0",
            "RELAY_METRICS_PORT": "0",
            "RELAY_DATA_DIRECTORY": path,
            "RELAY_CLOUDKIT_CONTAINER": "iCloud.test.mustdo",
            "RELAY_CLOUDKIT_BASE_URL": "http://127.0.0.1:9",
        ]
        for (key, value) in extra { settings[key] = value }
        try settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)\n" }.joined()
            .write(toFile: configFile, atomically: true, encoding: .utf8)
        let tokenFile = path + "/secrets/cloudkit-api-token"
        try FileManager.default.createDirectory(atPath: path + "/secrets", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: tokenFile, contents: Data("test-api-token\n".utf8), attributes: [.posixPermissions: 0o600])
        let generate = try ChildProcess(product: "mustdo-relayctl", ["keys", "generate", "--config", configFile])
        let status = try await generate.waitForExit()
        guard status == 0 else {
            throw ChildProcess.ChildProcessError.missing("keys generate failed: \(generate.text)")
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
