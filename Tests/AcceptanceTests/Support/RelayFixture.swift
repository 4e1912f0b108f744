import RelayHTTP
import RelayTestSupport

/// What most acceptance tests start from: an HTTP client, the standalone CloudKit emulator, and one
/// relay setup for it, on which the test starts `mustdo-relay serve` as often as it needs. The test
/// calls `remove()` when it ends (`defer`).
struct RelayFixture: Sendable {
    let http: HTTPClient
    let emulator: EmulatorProcess
    let setup: RelaySetup
    /// moto (DynamoDB and KMS) when the fixture was made with `aws: true`; the setup stores in it.
    let moto: MotoProcess?

    /// Starts the emulator (`rotation`: what it does with a rotated-away token, `EmulatorProcess`) and
    /// makes the setup; with `aws`, moto is started first and the setup stores in DynamoDB with KMS
    /// keys (moto's settings and credentials). `settings` are added last; `timeout` is the client's
    /// per request.
    init(
        rotation: String = "invalidate", aws: Bool = false, settings: [String: String] = [:],
        timeout: Duration = .seconds(30)
    ) async throws {
        let http = try HTTPClient.forTests(timeout: timeout)
        do {
            let moto = aws ? try await MotoProcess(http: http) : nil
            emulator = try await EmulatorProcess(http: http, rotation: rotation)
            var all = moto?.relaySettings ?? [:]
            for (key, value) in settings { all[key] = value }
            setup = try await RelaySetup(
                emulator: emulator, settings: all, environment: aws ? MotoProcess.credentials : [:])
            self.moto = moto
        } catch {
            http.shutdown()
            throw error
        }
        self.http = http
    }

    /// Starts a `mustdo-relay serve` on the setup (`port` 0: any free port) and waits until it listens.
    func start(port: Int = 0) async throws -> RelayInstance {
        try await setup.start(port: port, http: http)
    }

    /// Removes the setup's directory and closes the client (the children end with the test).
    func remove() {
        setup.remove()
        http.shutdown()
    }
}

extension HTTPClient {
    /// The client a test makes its own calls with: 2 s to connect, `timeout` a request.
    static func forTests(timeout: Duration = .seconds(30)) throws -> HTTPClient {
        try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .seconds(2), timeout: timeout))
    }
}
