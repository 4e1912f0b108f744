import Foundation
import RelayCrypto
import RelayJSON
import RelayStore
import Testing

@testable import RelayOAuth

/// Issue 41: a pre-registered client's secret (`mustdo-relayctl clients add`) is hashed under a key
/// derived from the user-ID key, which no pepper rotation changes; one added before that, with a
/// pepper hash, is hashed again the first time it proves its secret. Through the server on a
/// socket, with servers whose peppers differ sharing one store.
struct PreRegisteredSecretTests {
    static let redirect = "https://oauth-redirect.googleusercontent.com/r/mustdo-connector"

    /// `/token` with a code that does not exist: 400 once the client authenticated, 401 before.
    static func authenticate(_ h: OAuthHarness, _ id: String, _ secret: String) async throws -> Int {
        try await h.client.postForm(
            "/token",
            [
                ("grant_type", "authorization_code"), ("code", "mdr_ac_nothing"), ("code_verifier", "v"),
                ("redirect_uri", redirect), ("client_id", id), ("client_secret", secret),
            ]
        ).status
    }

    @Test func aSecretOutlivesThreePepperRotations() async throws {
        let first = OAuthSecrets.random()
        let a = try await OAuthHarness.start(secrets: first)
        let admin = OAuthAdmin(store: a.store, clock: a.clock)
        let added = try await admin.addClient(
            name: "Gemini", redirectURIs: [Self.redirect], method: "client_secret_post",
            userIDKey: first.userIDKey, now: a.clock.epochSeconds())
        let secret = try #require(added.secret)
        #expect(try await Self.authenticate(a, added.id, secret) == 400)
        await a.stop(removeFiles: false)
        // Pepper versions 3 and 4: the one it was added under (1) is long gone.
        let rotated = OAuthSecrets(
            currentPepper: .init(version: 4, key: .random()), previousPepper: .init(version: 3, key: .random()),
            userIDKey: first.userIDKey)
        let b = try await OAuthHarness.start(secrets: rotated, directory: a.directory)
        #expect(try await Self.authenticate(b, added.id, secret) == 400, "the secret still authenticates")
        #expect(try await Self.authenticate(b, added.id, "mdr_cs_wrong") == 401)
        await b.stop()
    }

    @Test func aSecretHashedUnderThePepperIsHashedAgainAtItsFirstUse() async throws {
        try await withHarness { h in
            let id = "pre-legacyClientAAAAAAAAAA"
            let secret = "mdr_cs_" + Base64URL.encode(SecureRandom.bytes(count: 32))
            let pepper = h.secrets.currentPepper
            let legacy = RegisteredClient(
                id: id, source: .registration, name: "Gemini", redirectURIs: [Self.redirect],
                authMethod: .clientSecretPost, grantTypes: ["authorization_code", "refresh_token"], scope: nil,
                secretHash: HMACSHA256.authenticationCode(for: secret, key: pepper.key),
                secretPepperVersion: pepper.version, issuedAt: h.clock.epochSeconds(), preRegistered: true)
            _ = try await h.store.put(
                OAuthKeys.client(id), attributes: legacy.attributes, expiresAt: nil, condition: .absent)
            #expect(try await Self.authenticate(h, id, "mdr_cs_wrong") == 401)
            #expect(
                try await h.store.get(OAuthKeys.client(id))?.attributes["pv"] != nil, "a wrong secret changes nothing")
            #expect(try await Self.authenticate(h, id, secret) == 400)
            let item = try #require(try await h.store.get(OAuthKeys.client(id)))
            #expect(item.attributes["pv"] == nil, "hashed again under the user-ID key")
            #expect(
                item.attributes.bytes("secret")
                    == TokenHasher.preRegisteredSecretHash(secret, userIDKey: h.secrets.userIDKey))
            #expect(try await Self.authenticate(h, id, secret) == 400)
        }
    }
}
