import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

extension CloudKitFront {
    /// Every tool through the official SDK client against `mustdo-relay serve` whose CloudKit is the
    /// emulator behind a `CloudKitFront` (trusted through `RELAY_CLOUDKIT_CA_FILE`; `http2: false` offers
    /// HTTP/1.1 only), with a `RecordingHop` between the front and the emulator when `recordingHop`:
    /// the set-up the upstream TLS tests share. `check` sees the front and the hop after the run and
    /// before the relay stops; the relay must then exit cleanly with no error logged.
    static func allToolsThroughFront(
        prefix: String, http2: Bool = true, recordingHop: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation,
        check: (_ front: CloudKitFront, _ hop: RecordingHop?) throws -> Void
    ) async throws {
        let directory = try temporaryDirectory(prefix: prefix).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificates = try await TestCertificates.make(in: directory)
        let port = try freePort()
        let issuer = "http://127.0.0.1:\(port)"

        let (emulator, emulatorURL) = try await ChildProcess.emulator(callback: issuer + "/oauth/apple/callback")
        let hop = recordingHop ? try RecordingHop(upstream: emulatorURL) : nil
        let cloudKit = try await CloudKitFront(
            directory: directory + "/cloudkit", certificates: certificates, emulatorURL: hop?.url ?? emulatorURL,
            http2: http2)
        let service = try await ServiceDirectory(extra: [
            "RELAY_ISSUER": issuer, "RELAY_PORT": String(port), "RELAY_CLOUDKIT_BASE_URL": cloudKit.url,
            "RELAY_CLOUDKIT_CA_FILE": certificates.caFile,
        ])
        defer { service.remove() }
        let (relay, _) = try await ChildProcess.serve(service)

        let run = try await PythonScript.run(
            try PythonScript.virtualenv(".venv-mcp2"), "Tests/EndToEndTests/e2e/all_tools.py",
            [issuer + "/mcp", "dave@example.com"])
        #expect(run.status == 0, "\(run.output)", sourceLocation: sourceLocation)
        #expect(run.report["failures"] as? [String] == [], "\(run.output)", sourceLocation: sourceLocation)
        #expect(
            Set(run.report["calls"] as? [String] ?? []) == Set(EndToEndSuite.ProxyTests.tools),
            sourceLocation: sourceLocation)

        try check(cloudKit, hop)

        relay.signal(SIGTERM)
        let relayStatus = try await relay.waitForExit()
        #expect(relayStatus == 0, "\(relay.text)", sourceLocation: sourceLocation)
        #expect(!relay.text.contains("\"level\":\"error\""), "\(relay.text)", sourceLocation: sourceLocation)
        let cloudKitStatus = try await cloudKit.stop()
        #expect(cloudKitStatus == 0, sourceLocation: sourceLocation)
        emulator.signal(SIGTERM)
        _ = try await emulator.waitForExit()
    }
}
