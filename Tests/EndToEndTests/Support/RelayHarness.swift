import Foundation
import RelayEmulator
import RelayHTTP
import RelayStore
import RelaySync

@testable import RelayDemo
@testable import RelayService

/// The whole relay in this process, as `mustdo-relay-demo` assembles it (real SQLite file, real
/// vault with a local key file, the CloudKit emulator on its own port), with logs captured in a file
/// so tests can read them.
final class RelayHarness: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a let of a Sendable type or set once in init.
    let application: Application
    let emulator: Emulator
    let dataDirectory: String
    let logFile: String
    let http: HTTPClient
    private let logFD: Int32

    var issuer: String { application.configuration.issuer }
    var mcpURL: String { issuer + "/mcp" }

    /// `logLevel` debug writes every line (no `LogBudget`); `configure` changes the demo
    /// configuration; `outbound` replaces the HTTP client the relay fetches client metadata
    /// documents with (CloudKit keeps its own), e.g. one whose proxy stands in for their hosts;
    /// `wrapStore` wraps the opened store (e.g. to hold some writes); `clock` is the relay's (the store and the
    /// emulator keep the system's).
    init(
        rotation: EmulatorSettings.Rotation = .invalidate, logLevel: LogEvent.Level = .debug,
        configure: (inout Configuration) -> Void = { _ in }, outbound: HTTPClient? = nil,
        wrapStore: ((any Store) -> any Store)? = nil, clock: any WallClock = SystemClock()
    ) async throws {
        dataDirectory =
            FileManager.default.temporaryDirectory.appendingPathComponent("harness-\(UUID().uuidString)").path
        let prepared = try Demo(port: 0, dataDirectory: dataDirectory).prepare()
        var configuration = prepared.configuration
        configure(&configuration)
        emulator = prepared.emulator
        emulator.updateSettings { $0.rotation = rotation }
        logFile = dataDirectory + "/relay.log"
        logFD = open(logFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let logger = Logger(minimumLevel: logLevel, fd: logFD)
        var backends = try await Backends.open(configuration, logger: logger)
        if outbound != nil || wrapStore != nil {
            backends = Backends(
                store: wrapStore?(backends.store) ?? backends.store, keyService: backends.keyService,
                vault: backends.vault, http: outbound ?? backends.http,
                cloudKit: backends.cloudKit, peppers: backends.peppers, userIDKey: backends.userIDKey,
                metrics: backends.metrics)
        }
        application = try buildApplication(configuration, backends: backends, logger: logger, clock: clock)
        try application.start()
        http = try HTTPClient()
    }

    func stop() async {
        application.shutdown()
        await application.waitUntilStopped()
        application.logger.close()
        close(logFD)
        emulator.shutdown()
        await emulator.waitUntilStopped()
        http.shutdown()
    }

    func removeFiles() { try? FileManager.default.removeItem(atPath: dataDirectory) }

    /// Every byte of the relay's SQLite files (database, WAL, shared memory).
    func storeBytes() throws -> Data {
        var bytes = Data()
        for file in try FileManager.default.contentsOfDirectory(atPath: dataDirectory)
        where file.hasPrefix("relay.sqlite") {
            bytes += try Data(contentsOf: URL(fileURLWithPath: dataDirectory + "/" + file))
        }
        return bytes
    }

    func logText() throws -> String { try String(contentsOfFile: logFile, encoding: .utf8) }

    /// `GET` on the metrics listener.
    func metricsText() async throws -> String {
        guard let port = application.metricsServer?.port else { return "" }
        return try await http.send(ClientRequest(method: .get, url: "http://127.0.0.1:\(port)/metrics")).text
    }
}
