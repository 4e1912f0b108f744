import Foundation
import RelayCrypto
import RelayHTTP
import RelayJSON
import Testing

extension EndToEndSuite {
    /// Issue 41: `mustdo-relayctl clients add` pre-registers a client for AI clients that only accept
    /// a pasted client ID and secret (the Gemini app, Copilot Studio's manual mode, ChatGPT's
    /// user-defined OAuth client). The secret is shown once and stored only hashed; the client
    /// completes the whole flow (refresh included) against a `mustdo-relay serve` child process, and
    /// the consent page shows it as verified.
    @Suite(.timeLimit(.minutes(10))) struct RelayctlClientsAddTests {
        @Test func testAPreRegisteredConfidentialClientConnectsAndItsSecretIsNeverStored() async throws {
            let relay = try await ServedRelay()
            var finished = false
            defer { if !finished { Task { [relay] in await relay.finish() } } }
            let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let redirect = driver.redirectURI

            let unsafe = try await relay.relayctl(["clients", "add", "--redirect-uri", "javascript:alert(1)"])
            #expect(unsafe.status != 0, "\(unsafe.description)")
            let added = try await relay.relayctl([
                "clients", "add", "--name", "Gemini", "--confidential", "--method", "client_secret_post",
                "--redirect-uri", redirect, "--json",
            ])
            #expect(added.status == 0, "\(added.description)")
            let clientID = try #require(added.json?["client_id"]?.stringValue)
            let secret = try #require(added.json?["client_secret"]?.stringValue)
            let shown = try await relay.relayctl(["clients", "show", clientID])
            #expect(!shown.stdout.contains(secret), "shown once only")

            let verifier = Base64URL.encode(SecureRandom.bytes(count: 32))
            let state = "s-1"
            let query = FormDecoding.encode([
                ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirect), ("state", state),
                ("code_challenge", Base64URL.encode(SHA256.hash(verifier))), ("code_challenge_method", "S256"),
            ])
            let code = try await driver.signIn(
                authorizationURL: relay.issuer + "/authorize?" + query, appleID: "gemini@example.com", state: state)
            #expect(driver.lastConsentPage.contains(">Verified<"), "the operator vouches for it")
            #expect(driver.lastConsentPage.contains("<bdi>Gemini</bdi>"))
            let exchange = [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                ("client_id", clientID),
                ("code_verifier", verifier),
            ]
            let wrong = try await relay.http.send(
                ClientRequest(
                    method: .post, url: relay.issuer + "/token",
                    headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Array(FormDecoding.encode(exchange + [("client_secret", "mdr_cs_wrong")]).utf8)))
            #expect(wrong.status == 401, "a wrong secret is invalid_client")
            let tokens = try await driver.json(
                .post, relay.issuer + "/token", form: exchange + [("client_secret", secret)])
            let refreshToken = try #require(tokens["refresh_token"]?.stringValue)
            let refreshed = try await driver.json(
                .post, relay.issuer + "/token",
                form: [
                    ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID),
                    ("client_secret", secret),
                ])
            let access = try #require(refreshed["access_token"]?.stringValue)
            let (reply, _) = try await relay.mcp.tool("get_me", token: access)
            #expect(reply.status == 200)

            // Only an HMAC of the secret is kept: not the secret, in no file of the service directory.
            let files = FileManager.default.enumerator(atPath: relay.service.path)?.compactMap { $0 as? String } ?? []
            for file in files {
                let data = FileManager.default.contents(atPath: relay.service.path + "/" + file) ?? Data()
                #expect(data.range(of: Data(secret.utf8)) == nil, "\(file)")
            }
            // Never purged as unused while it waits for its first use.
            let purge = try await relay.relayctl(["clients", "purge-unused", "--older-than", "0", "--yes", "--json"])
            #expect(purge.status == 0, "\(purge.description)")
            let still = try await relay.relayctl(["clients", "show", clientID])
            #expect(still.status == 0)
            finished = true
            await relay.finish()
        }

        /// Issue 41: a pasted secret is what a person's AI client keeps for good, so it is hashed
        /// under a key that no pepper rotation changes (a pepper hash died at the second rotation).
        /// Three rotations, each with a restart as docs/operations.md says, then a new connection
        /// with the same client ID and secret.
        @Test func testAPreRegisteredClientsSecretSurvivesThreePepperRotations() async throws {
            let relay = try await ServedRelay()
            var finished = false
            defer { if !finished { Task { [relay] in await relay.finish() } } }
            let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let redirect = driver.redirectURI
            let added = try await relay.relayctl([
                "clients", "add", "--name", "Gemini", "--confidential", "--redirect-uri", redirect, "--json",
            ])
            #expect(added.status == 0, "\(added.description)")
            let clientID = try #require(added.json?["client_id"]?.stringValue)
            let secret = try #require(added.json?["client_secret"]?.stringValue)
            let basic = "Basic " + Data("\(clientID):\(secret)".utf8).base64EncodedString()
            func connect(_ appleID: String, authorization: String) async throws -> ClientResponse {
                let verifier = Base64URL.encode(SecureRandom.bytes(count: 32))
                let query = FormDecoding.encode([
                    ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirect), ("state", "s"),
                    ("code_challenge", Base64URL.encode(SHA256.hash(verifier))), ("code_challenge_method", "S256"),
                ])
                let code = try await driver.signIn(
                    authorizationURL: relay.issuer + "/authorize?" + query, appleID: appleID, state: "s")
                return try await relay.http.send(
                    ClientRequest(
                        method: .post, url: relay.issuer + "/token",
                        headers: ["Content-Type": "application/x-www-form-urlencoded", "Authorization": authorization],
                        body: Array(
                            FormDecoding.encode([
                                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                                ("code_verifier", verifier),
                            ]).utf8)))
            }
            let before = try await connect("before@example.com", authorization: basic)
            #expect(before.status == 200)
            for round in 1...3 {
                let rotated = try await relay.relayctl(["pepper", "rotate", "--yes"])
                #expect(rotated.status == 0, "rotation \(round): \(rotated.description)")
                try await relay.restart()
            }
            let after = try await connect("after@example.com", authorization: basic)
            #expect(after.status == 200, "three rotations later: \(String(decoding: after.body, as: UTF8.self))")
            let wrong = "Basic " + Data("\(clientID):mdr_cs_wrong".utf8).base64EncodedString()
            let refused = try await connect("wrong@example.com", authorization: wrong)
            #expect(refused.status == 401)
            finished = true
            await relay.finish()
        }
    }
}
