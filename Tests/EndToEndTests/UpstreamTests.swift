import Foundation
import RelayHTTP
import RelaySync
import Testing

#if canImport(Glibc)
    import Glibc
    import RelayTestSupport
#endif

extension EndToEndSuite {
    /// The relay against the emulator over plain HTTP: every tool works through the official SDK
    /// client, and every CloudKit call went through libcurl, the one upstream client (it offers its
    /// decoders in `Accept-Encoding`), seen by a recording hop between the relay and the emulator.
    /// `RELAY_HTTP_CLIENT`, which chose between libcurl and the relay's own client before issue 40,
    /// is still accepted from an old env file: ignored, with one warning at start-up.
    @Suite(.timeLimit(.minutes(10))) struct UpstreamTests {
        @Test func testEveryToolWorksThroughLibcurl() async throws {
            let (encodings, log) = try await everyTool(extra: [:])
            #expect(!encodings.isEmpty)
            #expect(encodings.allSatisfy { $0.contains("gzip") }, "\(encodings)")
            #expect(!log.contains("config.relay_http_client_ignored"), "\(log)")
        }

        /// An operator's env file from before issue 40 still starts the relay, whichever client it named.
        @Test func testTheRetiredClientSettingIsIgnoredWithAWarning() async throws {
            for value in ["direct", "curl"] {
                let (encodings, log) = try await everyTool(extra: ["RELAY_HTTP_CLIENT": value])
                #expect(encodings.allSatisfy { $0.contains("gzip") }, "\(value): \(encodings)")
                #expect(log.components(separatedBy: "config.relay_http_client_ignored").count == 2, "\(log)")
                #expect(log.contains("\"level\":\"warning\""), "\(log)")
            }
        }

        /// `serve --check-config` passes such a file and says the setting is ignored.
        @Test func testTheConfigurationCheckNotesTheRetiredSetting() async throws {
            let service = try await ServiceDirectory(extra: ["RELAY_HTTP_CLIENT": "direct"])
            defer { service.remove() }
            let check = try ChildProcess(
                product: "mustdo-relay", ["serve", "--config", service.configFile, "--check-config"])
            let status = try await check.waitForExit(timeout: .seconds(30))
            #expect(status == 0, "\(check.text)")
            #expect(check.text.contains("configuration ok"), "\(check.text)")
            #expect(check.text.contains("RELAY_HTTP_CLIENT is retired and ignored"), "\(check.text)")
        }

        /// Runs every tool through the SDK with `extra` settings; the `Accept-Encoding` values the
        /// CloudKit calls arrived with, and the relay's log.
        private func everyTool(extra: [String: String]) async throws -> (Set<String>, String) {
            let port = try freePort()
            let issuer = "http://127.0.0.1:\(port)"
            let (emulator, emulatorURL) = try await ChildProcess.emulator(callback: issuer + "/oauth/apple/callback")
            let hop = try RecordingHop(upstream: emulatorURL)
            let service = try await ServiceDirectory(
                extra: [
                    "RELAY_ISSUER": issuer, "RELAY_PORT": String(port), "RELAY_CLOUDKIT_BASE_URL": hop.url,
                ].merging(extra) { $1 })
            defer { service.remove() }
            let (relay, _) = try await ChildProcess.serve(service)

            let run = try await PythonScript.run(
                try PythonScript.virtualenv(".venv-mcp2"), "Tests/EndToEndTests/e2e/all_tools.py",
                [issuer + "/mcp", "dave@example.com"])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.report["failures"] as? [String] == [], "\(run.output)")
            #expect(Set(run.report["calls"] as? [String] ?? []) == Set(ProxyTests.tools))

            let calls = hop.requests.filter { $0.path.hasPrefix("/database/") }
            #expect(calls.count > 9, "\(hop.requests)")

            try await expectCleanStop(relay: relay, emulator: emulator)
            return (Set(calls.map(\.acceptEncoding)), relay.text)
        }
    }
}

/// A loopback HTTP server that records each request's path and `Accept-Encoding` and passes it on to
/// `upstream` (through libcurl), answering with upstream's status, headers and body.
final class RecordingHop: Sendable {
    struct Seen: Sendable, CustomStringConvertible {
        var path: String
        var acceptEncoding: String
        var description: String { "\(path) [\(acceptEncoding)]" }
    }

    private let server: Server
    private let seen = Locked<[Seen]>([])
    var url: String { "http://127.0.0.1:\(server.port)" }
    var requests: [Seen] { seen.withLock { $0 } }

    init(upstream: String) throws {
        let client = try HTTPClient()
        let seen = seen
        let dropped: Set<String> = ["host", "content-length", "connection", "accept-encoding", "transfer-encoding"]
        server = Server(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1),
            responder: Responder(async: { request in
                seen.withLock {
                    $0.append(
                        Seen(path: String(request.path), acceptEncoding: request.headers["accept-encoding"] ?? "-"))
                }
                var headers = HTTPHeaders()
                for field in request.headers where !dropped.contains(field.name.lowercased()) {
                    headers.add(field.name, field.value)
                }
                do {
                    let answer = try await client.send(
                        ClientRequest(
                            method: request.method, url: upstream + request.target, headers: headers,
                            body: request.body))
                    var back = HTTPHeaders()
                    for field in answer.headers
                    where !dropped.contains(field.name.lowercased()) && field.name.lowercased() != "date"
                        && field.name.lowercased() != "content-encoding"
                    {
                        back.add(field.name, field.value)
                    }
                    return Response(
                        status: HTTPStatus(code: answer.status, reason: "Upstream"), headers: back, body: answer.body)
                } catch {
                    return Response(status: HTTPStatus(code: 502, reason: "Bad Gateway"), body: Array("\(error)".utf8))
                }
            }))
        try server.start()
    }

    deinit { server.shutdown() }
}
