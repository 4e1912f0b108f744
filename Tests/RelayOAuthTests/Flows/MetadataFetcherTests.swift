import Foundation
import RelayHTTP
import RelayJSON
import RelayStore
import RelaySync
import RelayTestSupport
import Testing

@testable import RelayOAuth

/// The libcurl metadata-document fetcher against a real server on a loopback port: the public-only
/// address rule, no redirects, the size and time limits, and a whole authorization with a
/// document-identified client.
struct MetadataFetcherTests {
    /// A document server on port 0 for one test.
    static func withDocumentServer(_ body: (Int) async throws -> Void) async throws {
        var router = Router()
        router.get("/client.json") { request in
            let port = request.headers["host"]?.split(separator: ":").last.map(String.init) ?? "0"
            let url = "http://127.0.0.1:\(port)/client.json"
            return Response(
                status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=60"],
                body: Array(
                    "{\"client_id\":\"\(url)\",\"client_name\":\"Local\",\"redirect_uris\":[\"http://localhost:7777/cb\"],\"token_endpoint_auth_method\":\"none\"}"
                        .utf8))
        }
        router.get("/moved.json", immediate: { _ in .redirect(to: "/client.json") })
        router.get(
            "/big.json",
            immediate: { _ in
                Response(headers: ["Content-Type": "application/json"], body: [UInt8](repeating: 0x20, count: 50_000))
            })
        router.get("/slow.json") { _ in
            try await Task.sleep(for: .seconds(2))
            return .text("{}")
        }
        let server = Server(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1), responder: router.responder)
        try server.start()
        try await withCleanup {
            try await body(server.port)
        } cleanup: {
            server.shutdown()
            await server.waitUntilStopped()
        }
    }

    @Test func publicOnlyRefusesLoopbackAndTheTestSettingAllowsIt() async throws {
        let client = try HTTPClient()
        try await Self.withDocumentServer { port in
            let url = "http://127.0.0.1:\(port)/client.json"
            await #expect(throws: ClientError.addressRefused) {
                try await HTTPClientMetadataFetcher(client: client).fetch(url, maximumBytes: 5120, timeout: .seconds(5))
            }
            let document = try await HTTPClientMetadataFetcher(client: client, allowsLoopback: true).fetch(
                url, maximumBytes: 5120, timeout: .seconds(5))
            #expect(document.status == 200)
            #expect(try JSONValue(parsing: document.body)["client_id"]?.stringValue == url)
        }
    }

    @Test func redirectsAreNotFollowedAndLimitsHold() async throws {
        let client = try HTTPClient()
        let fetcher = HTTPClientMetadataFetcher(client: client, allowsLoopback: true)
        try await Self.withDocumentServer { port in
            let moved = try await fetcher.fetch(
                "http://127.0.0.1:\(port)/moved.json", maximumBytes: 5120, timeout: .seconds(5))
            #expect(moved.status == 302, "the redirect comes back as is; the policy refuses anything but 200")
            await #expect(throws: ClientError.responseTooLarge(limit: 5120 + 8192)) {
                try await fetcher.fetch("http://127.0.0.1:\(port)/big.json", maximumBytes: 5120, timeout: .seconds(5))
            }
            await #expect(throws: ClientError.timedOut) {
                try await fetcher.fetch(
                    "http://127.0.0.1:\(port)/slow.json", maximumBytes: 5120, timeout: .milliseconds(300))
            }
        }
    }

    @Test func documentClientAuthorizesThroughTheRealFetcher() async throws {
        let client = try HTTPClient()
        try await Self.withDocumentServer { port in
            let url = "http://127.0.0.1:\(port)/client.json"
            let harness = try await OAuthHarness.start(
                fetcher: HTTPClientMetadataFetcher(client: client, allowsLoopback: true))
            do {
                let verifier = OAuthHarness.newVerifier()
                let path = OAuthHarness.authorizePath(
                    clientID: url, verifier: verifier, redirectURI: "http://localhost:40001/cb")
                let callback = try await harness.signIn(browser: harness.browser(), authorizePath: path)
                let code = try #require(callback.locationQuery["code"]?.first)
                let tokens = try await harness.exchange(
                    code: code, verifier: verifier, clientID: url, redirectURI: "http://localhost:40001/cb")
                #expect(tokens.status == 200)
            } catch {
                await harness.stop()
                throw error
            }
            await harness.stop()
        }
    }
}

extension MetadataFetcherTests {
    /// What the switchable document host does.
    enum HostMode: Sendable {
        case serve(name: String)
        case fail, hang
    }

    /// The libcurl fetcher against a real host that answers, then fails (503), hangs (slower
    /// than the relay waits), publishes a changed document, and finally goes away altogether.
    @Test func aRealHostThatFailsHangsChangesAndDisappears() async throws {
        let mode = Locked(HostMode.serve(name: "Local"))
        var router = Router()
        router.get("/client.json") { request in
            let port = request.headers["host"]?.split(separator: ":").last.map(String.init) ?? "0"
            switch mode.withLock({ $0 }) {
            case .serve(let name):
                return Response(
                    status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=60"],
                    body: Array(
                        """
                        {"client_id":"http://127.0.0.1:\(port)/client.json","client_name":"\(name)",\
                        "redirect_uris":["http://localhost:7777/cb"],"token_endpoint_auth_method":"none"}
                        """.utf8))
            case .fail:
                return Response(
                    status: .serviceUnavailable, headers: ["Content-Type": "text/html"], body: Array("busy".utf8))
            case .hang:
                try? await Task.sleep(for: .seconds(3))
                return Response(status: .serviceUnavailable)
            }
        }
        let server = Server(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1), responder: router.responder)
        try server.start()
        let url = "http://127.0.0.1:\(server.port)/client.json"
        let harness = try await OAuthHarness.start(
            fetcher: HTTPClientMetadataFetcher(client: try HTTPClient(), allowsLoopback: true))
        func page() async throws -> TestResponse {
            try await harness.browser().get(
                OAuthHarness.authorizePath(
                    clientID: url, verifier: OAuthHarness.newVerifier(), redirectURI: "http://localhost:7777/cb"))
        }
        do {
            #expect(try await page().text.contains("Local"))
            mode.withLock { $0 = .fail }
            harness.clock.advance(by: 61)
            #expect(try await page().status == 200, "503 from the host: the last good copy")
            mode.withLock { $0 = .hang }
            harness.clock.advance(by: 10)  // past the back-off
            let started = ContinuousClock.now
            #expect(try await page().status == 200, "a hanging host: the copy after the stale wait")
            #expect(ContinuousClock.now - started < .seconds(3), "the request did not wait for the host")
            // The host answers again with a changed document: once the hung fetch has ended and
            // its back-off has passed, a request fetches it (each try moves the clock on).
            mode.withLock { $0 = .serve(name: "Changed") }
            var changed = false
            for _ in 0..<100 where !changed {
                harness.clock.advance(by: 11)
                changed = try await page().text.contains("Changed")
                if !changed { try await Task.sleep(for: .milliseconds(300)) }
            }
            #expect(changed, "the changed document was never fetched")
            server.shutdown()
            await server.waitUntilStopped()
            harness.clock.advance(by: 61)
            #expect(try await page().text.contains("Changed"), "the host is gone: the last good copy")
        } catch {
            server.shutdown()
            await harness.stop()
            throw error
        }
        server.shutdown()
        await harness.stop()
    }
}
