import RelayHTTP
import Testing

/// What the client's TLS must refuse, whatever the server offers.
@Suite(.enabled(if: TLSServer.available, "needs nginx and openssl"))
struct ClientTLSFailureTests {
    @Test func anUnreadableCAFileIsATLSError() async throws {
        let server = try await TLSServer()
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: "/nonexistent/ca.pem"))
        do {
            _ = try await client.send(ClientRequest(url: "https://localhost:\(server.port)/"))
            Issue.record("a missing CA file was ignored")
        } catch {
            guard case .tls = error else { throw error }
        }
    }

    /// The client's own floor is TLS 1.2 (`CURLOPT_SSLVERSION`), whatever the system OpenSSL's
    /// default security level allows.
    @Test func aServerBelowTLS12IsRefused() async throws {
        let server = try await TLSServer(protocols: "TLSv1.1")
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: server.certificate))
        do {
            _ = try await client.send(ClientRequest(url: "https://localhost:\(server.port)/"))
            Issue.record("a TLS 1.1 server was accepted")
        } catch {
            guard case .tls = error else { throw error }
        }
    }
}
