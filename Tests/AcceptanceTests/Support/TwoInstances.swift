import RelayHTTP
import RelayTestSupport

/// Two `mustdo-relay serve` processes on one DynamoDB table and KMS key (moto), with the same
/// secrets and one CloudKit emulator: what a load balancer spreads requests over.
struct TwoInstances {
    let http: HTTPClient
    let moto: MotoProcess
    let emulator: EmulatorProcess
    let setup: RelaySetup
    let a: RelayInstance
    let b: RelayInstance
    var both: [RelayInstance] { [a, b] }

    /// Starts moto, the emulator and both instances; `settings` are added to moto's.
    static func start(settings: [String: String] = [:], timeout: Duration = .seconds(30)) async throws -> TwoInstances {
        let http = try HTTPClient.forTests(timeout: timeout)
        let moto = try await MotoProcess(http: http)
        let emulator = try await EmulatorProcess(http: http)
        var all = moto.relaySettings
        for (key, value) in settings { all[key] = value }
        let setup = try await RelaySetup(emulator: emulator, settings: all, environment: MotoProcess.credentials)
        let a = try await setup.start(http: http)
        let b = try await setup.start(http: http)
        return TwoInstances(http: http, moto: moto, emulator: emulator, setup: setup, a: a, b: b)
    }

    /// Removes the instances' directory and closes the client (the children end with the test).
    func remove() {
        setup.remove()
        http.shutdown()
    }
}
