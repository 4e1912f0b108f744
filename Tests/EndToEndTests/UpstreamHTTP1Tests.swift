import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

/// CloudKit over TLS whose ALPN offers HTTP/1.1 only (nginx without `http2`): the relay falls back
/// to HTTP/1.1 and every tool still works through the official SDK client. `ProxyTests` covers the
/// HTTP/2 front Apple actually serves; this is the fallback, should an endpoint or a proxy on the
/// way stop offering HTTP/2.
final class UpstreamHTTP1Tests: XCTestCase {
    func testEveryToolWorksWhenCloudKitOffersOnlyHTTP1() async throws {
        let directory = try temporaryDirectory(prefix: "upstream-h1").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificates = try await TestCertificates.make(in: directory)
        let port = try freePort()
        let issuer = "http://127.0.0.1:\(port)"

        let (emulator, emulatorURL) = try await ChildProcess.emulator(callback: issuer + "/oauth/apple/callback")
        let cloudKit = try await CloudKitFront(
            directory: directory + "/cloudkit", certificates: certificates, emulatorURL: emulatorURL, http2: false)
        let service = try await ServiceDirectory(extra: [
            "RELAY_ISSUER": issuer, "RELAY_PORT": String(port), "RELAY_CLOUDKIT_BASE_URL": cloudKit.url,
            "RELAY_CLOUDKIT_CA_FILE": certificates.caFile,
        ])
        defer { service.remove() }
        let (relay, _) = try await ChildProcess.serve(service)

        let run = try await PythonScript.run(
            try PythonScript.virtualenv(".venv-mcp2"), "Tests/EndToEndTests/e2e/all_tools.py",
            [issuer + "/mcp", "dave@example.com"])
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertEqual(run.report["failures"] as? [String], [], run.output)
        XCTAssertEqual(Set(run.report["calls"] as? [String] ?? []), Set(ProxyTests.tools))

        let requests = cloudKit.requests
        XCTAssertGreaterThan(requests.filter { $0.path.hasPrefix("/database/") }.count, 9, "\(requests)")
        XCTAssertEqual(Set(requests.map(\.protocolName)), ["HTTP/1.1"], "\(requests)")
        // Still pooled: calls one after another reuse a kept-alive connection.
        XCTAssertLessThan(Set(requests.map(\.connection)).count * 2, requests.count, "\(requests)")

        relay.signal(SIGTERM)
        let relayStatus = try await relay.waitForExit()
        XCTAssertEqual(relayStatus, 0, relay.text)
        XCTAssertFalse(relay.text.contains("\"level\":\"error\""), relay.text)
        let cloudKitStatus = try await cloudKit.stop()
        XCTAssertEqual(cloudKitStatus, 0)
        emulator.signal(SIGTERM)
        _ = try await emulator.waitForExit()
    }
}
