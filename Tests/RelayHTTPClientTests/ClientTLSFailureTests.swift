import RelayHTTP
import RelayTestSupport
import Testing

/// What the client's TLS must refuse, whatever the server offers.
@Suite(.enabled(if: TLSServer.available, "needs nginx and openssl"))
struct ClientTLSFailureTests {
    /// The file is read, not passed over: a client that ignored it would fall back to the system's
    /// CAs and fail too, but on the self-signed certificate, not on the file.
    @Test func anUnreadableCAFileIsATLSError() async throws {
        let server = try await TLSServer()
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: "/nonexistent/ca.pem"))
        defer { client.shutdown() }
        do {
            _ = try await client.send(ClientRequest(url: "https://localhost:\(server.port)/"))
            Issue.record("a missing CA file was ignored")
        } catch {
            guard case .tls(let message) = error else { throw error }
            #expect(message.contains("/nonexistent/ca.pem"), "not the CA file's error: \(message)")
        }
    }

    /// The client's own floor is TLS 1.2 (`CURLOPT_SSLVERSION`), whatever the system OpenSSL's
    /// default security level allows. OpenSSL 3 at its default level refuses a TLS 1.1 handshake the
    /// server signs (MD5+SHA1), so the server offers TLS 1.1 with RSA key exchange only, where nothing
    /// is signed: the system's curl, the same libcurl and OpenSSL without a floor, gets through.
    @Test func aServerBelowTLS12IsRefused() async throws {
        let server = try await TLSServer(
            protocols: "TLSv1.1", directives: "ssl_ciphers AES128-SHA:@SECLEVEL=0;", rsa: true)
        let url = "https://localhost:\(server.port)/"
        let withoutFloor = try await Subprocess.run(
            try Subprocess.path(of: "curl"), ["-sS", "--cacert", server.certificate, url])
        #expect(withoutFloor == "ok", "the server does not speak TLS 1.1 to a client that allows it")
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: server.certificate))
        defer { client.shutdown() }
        do {
            _ = try await client.send(ClientRequest(url: url))
            Issue.record("a TLS 1.1 server was accepted")
        } catch {
            guard case .tls = error else { throw error }
        }
    }
}
