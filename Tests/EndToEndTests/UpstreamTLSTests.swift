import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

/// The relay against CloudKit as Apple serves it: TLS with HTTP/2 offered through ALPN
/// (`CloudKitFront`, trusted through `RELAY_CLOUDKIT_CA_FILE`), the emulator behind it through the
/// recording hop. Every tool works through the official SDK client, every call came over HTTP/2 on
/// a few connections, and every one came from libcurl (its `Accept-Encoding`, which nginx passes
/// on to the hop).
final class UpstreamTLSTests: XCTestCase {
    func testEveryToolWorksThroughLibcurlOverTLSAndHTTP2() async throws {
        let directory = try temporaryDirectory(prefix: "upstream-tls").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificates = try await TestCertificates.make(in: directory)
        let port = try freePort()
        let issuer = "http://127.0.0.1:\(port)"

        let (emulator, emulatorURL) = try await ChildProcess.emulator(callback: issuer + "/oauth/apple/callback")
        let hop = try RecordingHop(upstream: emulatorURL)
        let cloudKit = try await CloudKitFront(
            directory: directory + "/cloudkit", certificates: certificates, emulatorURL: hop.url)
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
        XCTAssertEqual(Set(requests.map(\.protocolName)), ["HTTP/2.0"], "\(requests)")
        XCTAssertLessThanOrEqual(Set(requests.map(\.connection)).count, 8, "\(requests)")
        let calls = hop.requests.filter { $0.path.hasPrefix("/database/") }
        XCTAssertGreaterThan(calls.count, 9, "\(hop.requests)")
        XCTAssertTrue(calls.allSatisfy { $0.acceptEncoding.contains("gzip") }, "\(calls)")

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
