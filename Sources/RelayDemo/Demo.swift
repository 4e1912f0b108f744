import Foundation
import RelayEmulator
import RelayHTTP
import RelayService
import RelayVault

/// `mustdo-relay-demo`: the whole relay on one machine, no accounts, no keys to make by hand.
/// A data directory with fresh secrets (mode 0600) and a SQLite store, the CloudKit emulator on
/// its own loopback port (so the sign-in hop is cross-origin, as with Apple), and the relay on
/// `http://127.0.0.1:<port>` as its own issuer.
struct Demo {
    let port: Int
    let dataDirectory: String?

    /// The demo's pieces, ready to start.
    struct Prepared {
        let configuration: Configuration
        let emulator: Emulator
        let dataDirectory: String
    }

    func prepare() throws -> Prepared {
        let directory = try dataDirectory ?? Self.temporaryDirectory()
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let secrets = SecretSettings(directory: directory + "/secrets")
        let apiToken = try Self.createSecrets(secrets, keyFile: directory + "/secrets/master-keys")
        let relayPort = port == 0 ? try Server.freePort() : port
        let issuer = "http://127.0.0.1:\(relayPort)"

        let emulator = try Emulator(
            configuration: EmulatorConfiguration(
                apiToken: apiToken, container: Self.container, callbackURL: issuer + "/oauth/apple/callback",
                stateFile: directory + "/emulator-state.json"))
        try emulator.start()

        // The production defaults (per-address cap, deadlines, budgets), then what only the demo differs in.
        var configuration = Configuration.defaults
        configuration.issuer = issuer
        configuration.server.host = "127.0.0.1"
        configuration.server.port = relayPort
        configuration.hostAliases = ["localhost:\(relayPort)"]
        // The MCP Inspector's direct mode calls /mcp from its page (docs/operations.md, "Browser
        // clients"); production keeps the operator's list, empty by default.
        configuration.allowedOrigins = Self.inspectorOrigins
        configuration.metricsPort = 0
        configuration.dataDirectory = directory
        configuration.store = .sqlite(path: directory + "/relay.sqlite")
        configuration.keyService = .local(keyFile: directory + "/secrets/master-keys")
        configuration.secrets = secrets
        configuration.cloudKit.baseURL = emulator.baseURL
        configuration.cloudKit.container = Self.container
        configuration.cloudKit.environment = .production
        return Prepared(configuration: configuration, emulator: emulator, dataDirectory: directory)
    }

    static let container = "iCloud.demo.mustdo"

    /// Where the MCP Inspector's page runs (`CLIENT_PORT` 6274 by default), in both spellings.
    static let inspectorOrigins = ["http://localhost:6274", "http://127.0.0.1:6274"]

    /// Creates any secret file that does not exist yet (a kept data directory keeps its secrets)
    /// and returns the CloudKit API token the emulator is started with.
    static func createSecrets(_ secrets: SecretSettings, keyFile: String) throws -> String {
        _ = try SecretProvisioning.createMissing(
            secrets, keyService: .local(keyFile: keyFile), apiToken: "demo-" + SecretFiles.newKeyText())
        return try SecretFiles.readText(secrets.cloudKitAPITokenFile)
    }

    static func temporaryDirectory() throws -> String {
        // NSTemporaryDirectory() ends in "/" already ("/tmp/"): no second one in the printed path.
        var base = NSTemporaryDirectory()
        if !base.hasSuffix("/") { base += "/" }
        var template = Array((base + "mustdo-relay-demo.XXXXXX").utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw DemoError(description: "cannot create a temporary directory")
        }
        return String(cString: created)
    }

    /// What to tell the person who started the demo.
    static func banner(_ prepared: Prepared, application: Application) -> String {
        let issuer = prepared.configuration.issuer
        var lines = [
            "MustDo Relay demo is running.",
            "",
            "  Connector URL (MCP):   \(issuer)/mcp",
            "  Claude Code:           claude mcp add --transport http mustdo \(issuer)/mcp",
            "  MCP Inspector:         Streamable HTTP, the URL above (direct mode allowed from :6274)",
            "  Example client:        examples/connect \(issuer)/mcp --headless alice@example.com",
            "                         (the official MCP Python SDK; without --headless it opens your browser)",
            "  Disconnect page:       \(issuer)/disconnect",
            "  Connections page:      \(issuer)/connections",
            "",
            "  Sign-in is the local CloudKit emulator at \(prepared.emulator.baseURL): type any Apple ID,",
            "  e.g. alice@example.com. Each Apple ID gets its own empty to-do list.",
            "  Data (SQLite, keys, emulator state): \(prepared.dataDirectory)",
        ]
        if let metrics = application.metricsServer {
            lines.append("  Metrics:               http://127.0.0.1:\(metrics.port)/metrics")
        }
        lines += ["", "Press Ctrl-C to stop."]
        return lines.joined(separator: "\n")
    }
}

/// Why the demo could not start (the service's own problems arrive as its errors).
struct DemoError: Error, CustomStringConvertible {
    let description: String
}
