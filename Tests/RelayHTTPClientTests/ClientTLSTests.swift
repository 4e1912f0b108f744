import RelayHTTP
import Testing

/// TLS against nginx: verification always on, the CA file, host names, HTTP/2 through ALPN.
@Suite(.enabled(if: TLSServer.available, "needs nginx and openssl"))
struct ClientTLSTests {

    @Test func verificationIsAlwaysOn() async throws {
        let server = try await TLSServer()
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        do {
            _ = try await client.send(ClientRequest(url: "https://127.0.0.1:\(server.port)/"))
            Issue.record("an untrusted certificate was accepted")
        } catch {
            guard case .tls = error else { throw error }
        }
    }

    @Test func caFileTrustsTheTestCertificateAndHTTP2IsUsed() async throws {
        let server = try await TLSServer()
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(caFile: server.certificate))
        let response = try await client.send(ClientRequest(url: "https://localhost:\(server.port)/"))
        #expect(response.status == 200)
        #expect(response.text == "ok")
        #expect(response.httpVersion == "2")
        // An IP literal is verified against the certificate's IP address (no SNI is sent for it).
        let literal = try await client.send(ClientRequest(url: "https://127.0.0.1:\(server.port)/"))
        #expect(literal.text == "ok")
    }

    @Test func hostNameMustMatchTheCertificate() async throws {
        let server = try await TLSServer()
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(caFile: server.certificate))
        // Pinned to 127.0.0.1, so a name the certificate does not carry reaches the server.
        let pinned = IPAddress("127.0.0.1")
        let goodURL = "https://localhost:\(server.port)/"
        let good = try await client.send(ClientRequest(url: goodURL, pinnedAddress: pinned))
        #expect(good.status == 200)
        let wrongURL = "https://wrong.invalid:\(server.port)/"
        do {
            _ = try await client.send(ClientRequest(url: wrongURL, pinnedAddress: pinned))
            Issue.record("a certificate for another name was accepted")
        } catch {
            guard case .tls = error else { throw error }
        }
    }

    @Test func concurrentRequestsMultiplexOnOneConnection() async throws {
        let server = try await TLSServer()
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(caFile: server.certificate))
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
