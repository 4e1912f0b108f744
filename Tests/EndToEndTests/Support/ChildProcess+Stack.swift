import RelayTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The programs of the deployed stack started as the process-level tests start them.
extension ChildProcess {
    /// The standalone `cloudkit-emulator` with the tests' API token and container, sending the browser
    /// to `callback` after sign-in (`extra`: more flags); returns it and the URL it listens on.
    static func emulator(callback: String, _ extra: [String] = []) async throws -> (process: ChildProcess, url: String)
    {
        let emulator = try ChildProcess(
            product: "cloudkit-emulator",
            [
                "--port", "0", "--api-token", "test-api-token", "--container", "iCloud.test.mustdo", "--callback",
                callback,
            ] + extra)
        return (emulator, try await emulator.waitForOutput(matching: #"listening on (http://\S+)"#))
    }

    /// `mustdo-relay serve` on `service`'s settings, once it listens; returns it and its port.
    static func serve(_ service: ServiceDirectory, timeout: Duration = .seconds(20)) async throws -> (
        process: ChildProcess, port: Int
    ) {
        let relay = try ChildProcess(product: "mustdo-relay", ["serve", "--config", service.configFile])
        let port = try await relay.waitForOutput(matching: #"listening on http://127\.0\.0\.1:(\d+)"#, timeout: timeout)
        return (relay, Int(port)!)
    }
}

/// Stops `relay`, then `emulator`, with SIGTERM, as systemd does: the relay must exit 0 having logged no error.
func expectCleanStop(
    relay: ChildProcess, emulator: ChildProcess, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    relay.signal(SIGTERM)
    let relayStatus = try await relay.waitForExit()
    #expect(relayStatus == 0, "\(relay.text)", sourceLocation: sourceLocation)
    #expect(!relay.text.contains("\"level\":\"error\""), "\(relay.text)", sourceLocation: sourceLocation)
    emulator.signal(SIGTERM)
    _ = try await emulator.waitForExit()
}
