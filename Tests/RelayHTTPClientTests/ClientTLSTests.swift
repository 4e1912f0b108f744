import RelayHTTP
import Testing

@Suite(.enabled(if: TLSServer.available, "needs nginx and openssl"))
struct ClientTLSTests {
    @Test func verificationIsAlwaysOn() async throws {
        let server = try await TLSServer()
        let client = try HTTPClient()
        do {
            _ = try await client.send(ClientRequest(url: "https://127.0.0.1:\(server.port)/"))
            Issue.record("an untrusted certificate was accepted")
        } catch {
            guard case .tls = error else { throw error }
        }
    }

    @Test func caFileTrustsTheTestCertificateAndHTTP2IsUsed() async throws {
        let server = try await TLSServer()
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: server.certificate))
        let response = try await client.send(ClientRequest(url: "https://localhost:\(server.port)/"))
        #expect(response.status == 200)
        #expect(response.text == "ok")
        #expect(response.httpVersion == "2")
    }

    @Test func hostNameMustMatchTheCertificate() async throws {
        let server = try await TLSServer()
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: server.certificate))
        let pinned = IPAddress("127.0.0.1")
        let good = try await client.send(
            ClientRequest(url: "https://localhost:\(server.port)/", pinnedAddress: pinned))
        #expect(good.status == 200)
        do {
            _ = try await client.send(
                ClientRequest(url: "https://wrong.invalid:\(server.port)/", pinnedAddress: pinned))
            Issue.record("a certificate for another name was accepted")
        } catch {
            guard case .tls = error else { throw error }
        }
    }

    @Test func concurrentRequestsMultiplexOnOneConnection() async throws {
        let server = try await TLSServer()
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: server.certificate))
        let url = "https://localhost:\(server.port)/"
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<16 { group.addTask { try await client.send(ClientRequest(url: url)).httpVersion } }
            for try await version in group { #expect(version == "2") }
        }
        #expect(client.statistics.connectionsOpened == 1)
    }
}
