import RelayHTTP
import Testing

/// Run on both paths: libcurl (`direct: false`) and the direct client (`true`, `TLSClientSession`).
@Suite(.enabled(if: TLSServer.available, "needs nginx and openssl"))
struct ClientTLSTests {
    static let paths = [false, true]

    @Test(arguments: paths) func verificationIsAlwaysOn(direct: Bool) async throws {
        let server = try await TLSServer()
        let client = try HTTPClient(configuration: HTTPClientConfiguration(directClient: direct))
        do {
            _ = try await client.send(ClientRequest(url: "https://127.0.0.1:\(server.port)/"))
            Issue.record("an untrusted certificate was accepted")
        } catch {
            guard case .tls = error else { throw error }
        }
    }

    @Test(arguments: paths) func caFileTrustsTheTestCertificateAndHTTP2IsUsed(direct: Bool) async throws {
        let server = try await TLSServer()
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(caFile: server.certificate, directClient: direct))
        let response = try await client.send(ClientRequest(url: "https://localhost:\(server.port)/"))
        #expect(response.status == 200)
        #expect(response.text == "ok")
        #expect(response.httpVersion == "2")
        // An IP literal is verified against the certificate's IP address (no SNI is sent for it).
        let literal = try await client.send(ClientRequest(url: "https://127.0.0.1:\(server.port)/"))
        #expect(literal.text == "ok")
    }

    @Test(arguments: paths) func hostNameMustMatchTheCertificate(direct: Bool) async throws {
        let server = try await TLSServer()
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(caFile: server.certificate, directClient: direct))
        // The direct client takes no pinned address (those requests stay with libcurl), so it
        // reaches the server under a name the certificate does not carry but the resolver maps to
        // 127.0.0.1: `127.1` (glibc's short form, a name to both clients, not an IP literal).
        let pinned = direct ? nil : IPAddress("127.0.0.1")
        let goodURL = "https://localhost:\(server.port)/"
        let good = try await client.send(ClientRequest(url: goodURL, pinnedAddress: pinned))
        #expect(good.status == 200)
        let wrongURL = direct ? "https://127.1:\(server.port)/" : "https://wrong.invalid:\(server.port)/"
        do {
            _ = try await client.send(ClientRequest(url: wrongURL, pinnedAddress: pinned))
            Issue.record("a certificate for another name was accepted")
        } catch {
            guard case .tls = error else { throw error }
        }
    }

    @Test(arguments: paths) func concurrentRequestsMultiplexOnOneConnection(direct: Bool) async throws {
        let server = try await TLSServer()
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(caFile: server.certificate, directClient: direct))
        let url = "https://localhost:\(server.port)/"
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<16 { group.addTask { try await client.send(ClientRequest(url: url)).httpVersion } }
            for try await version in group { #expect(version == "2") }
        }
        #expect(client.statistics.connectionsOpened == 1)
        await server.log(lines: 16)
        #expect(server.connectionsLogged == 1)
    }
}
