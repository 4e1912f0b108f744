import Foundation
import RelayCrypto
import RelayHTTP
import RelayTestSupport
import Testing

@testable import RelayService

/// Every real client of `docs/clients.md` connects to the relay as it is configured by default:
/// each fixture in `clients/` (one per client and surface) is replayed through the whole app on a
/// real socket, with SQLite and the CloudKit emulator over HTTP for the Apple sign-in. Clients
/// identified by a metadata document get their real document, served under its real URL by a
/// stand-in host (`e2e/document_host.py`) behind a throwaway CA, through the relay's real fetcher.
extension EndToEndSuite {
    @Suite(.timeLimit(.minutes(10))) struct ClientReplayTests {
        @Test func testEveryRecordedClientConnectsWithTheDefaultConfiguration() async throws {
            let fixtures = try ClientFixture.all()
            #expect(fixtures.count >= 15, "one fixture per client and surface of docs/clients.md")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString)")
                .path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }

            var documents: [String: String] = [:]
            for fixture in fixtures {
                if case .metadataDocument(let url, let text) = fixture.registration { documents[url] = text }
            }
            let hosts = Set(documents.keys.compactMap { URLComponents(string: $0)?.host }).sorted()
            let certificates = try await TestCertificates.make(in: directory, names: hosts)
            let documentsFile = directory + "/documents.json"
            try JSONSerialization.data(withJSONObject: documents).write(to: URL(fileURLWithPath: documentsFile))
            let host = try ChildProcess(
                executable: try PythonScript.virtualenv(".venv-mcp2"),
                [
                    PythonScript.repository.appendingPathComponent("Tests/EndToEndTests/e2e/document_host.py").path,
                    certificates.certificateFile, certificates.keyFile, documentsFile,
                ])
            defer { host.signal(SIGTERM) }
            let port = try await host.waitForOutput(matching: #"\{"port": (\d+)\}"#, timeout: .seconds(30))
            let outbound = try HTTPClient(
                configuration: HTTPClientConfiguration(caFile: certificates.caFile, proxy: "http://127.0.0.1:\(port)"))
            defer { outbound.shutdown() }

            // The demo's configuration, whose OAuth settings are the defaults; only the test-only
            // setting that lets the fetcher reach the stand-in host (a loopback proxy) is set.
            let relay = try await RelayHarness(
                configure: { $0.oauth.allowLoopbackMetadataDocuments = true }, outbound: outbound)
            #expect(relay.application.configuration.oauth.redirectAllowlist == nil, "the default allowlist")
            for (index, fixture) in fixtures.enumerated() {
                var replay = ClientReplay(fixture: fixture, issuer: relay.issuer, http: relay.http)
                // The operator's step for clients that take a pasted ID and secret (the Gemini app):
                // `mustdo-relayctl clients add` on the relay's own data directory, a child process.
                let environment = [
                    "RELAY_ISSUER": relay.issuer, "RELAY_DATA_DIRECTORY": relay.dataDirectory,
                    "RELAY_CLOUDKIT_CONTAINER": "iCloud.test.mustdo", "RELAY_CLOUDKIT_BASE_URL": "http://127.0.0.1:9",
                ]
                replay.preRegister = { arguments in
                    let added = try await Relayctl.run(
                        ["clients", "add"] + arguments + ["--json"], environment: environment)
                    guard added.status == 0, let id = added.json?["client_id"]?.stringValue else {
                        throw ClientReplay.Failure(description: "\(fixture.file): clients add: \(added.description)")
                    }
                    return (id, added.json?["client_secret"]?.stringValue)
                }
                do {
                    let outcome = try await replay.run(appleID: "replay-\(index)@example.com")
                    #expect(
                        outcome.protectedResource["resource"]?.stringValue == relay.issuer + fixture.typedPath,
                        "\(fixture.file): the metadata names the URL as typed")
                    #expect(!outcome.grantedScope.isEmpty, "\(fixture.file)")
                } catch {
                    Issue.record("\(error)")
                }
            }
            // The code tab presenting Claude Code's document with its claude:// redirect, which the
            // document does not list (anthropics/claude-code#93671): refused on a local page, never
            // redirected, as the metadata-document rules require.
            let codeTab = FormDecoding.encode([
                ("response_type", "code"), ("client_id", "https://claude.ai/oauth/claude-code-client-metadata"),
                ("redirect_uri", "claude://claude.ai/mcp-auth-callback/sdk"), ("state", "s"),
                ("code_challenge", Base64URL.encode(SHA256.hash(String(repeating: "v", count: 43)))),
                ("code_challenge_method", "S256"),
            ])
            let refused = try await relay.http.send(ClientRequest(url: relay.issuer + "/authorize?" + codeTab))
            #expect(refused.status == 400)
            #expect(refused.headers["location"] == nil)
            await relay.stop()
            relay.removeFiles()
            // The host prints each fetch; the last one may still be on its way through the pipe.
            for url in documents.keys {
                let line = NSRegularExpression.escapedPattern(for: "{\"fetched\": \"\(url)\"}")
                let seen = try? await host.waitForOutput(matching: line, timeout: .seconds(5))
                #expect(seen != nil, "the relay fetched \(url) from its host")
            }
        }
    }
}
