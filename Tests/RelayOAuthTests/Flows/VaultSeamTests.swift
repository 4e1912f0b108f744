import RelayCrypto
import RelayStore
import RelayVault
import Testing

@testable import RelayOAuth

/// The seams with the real vault behind them, wired the way RelayService wires them: `Vault.seal`
/// for new grants, `Vault.bindToToken` / `wrappedKey(from:)` for token binding, and
/// `Vault.unseal` with the presented token per MCP call.
struct VaultSeamTests {
    static let purpose = "cloudkit-web-auth-token"

    struct VaultSealer: GrantSealer {
        let vault: Vault

        func seal(webAuthToken: String, grant: GrantContext) async throws -> RelayOAuth.SealedCloudKitToken {
            let sealed = try await vault.seal(Array(webAuthToken.utf8), context: VaultSeamTests.context(grant))
            return RelayOAuth.SealedCloudKitToken(
                sealed: sealed.grant.bytes, secret: GrantSecret(sealed.wrappedKey.bytes))
        }
    }

    struct VaultBinder: TokenBinder {
        let vault: Vault

        func bind(_ secret: GrantSecret, to token: String, grant: GrantContext) throws -> [UInt8] {
            try vault.bindToToken(WrappedKey(bytes: secret.bytes), token: token, context: VaultSeamTests.context(grant))
                .bytes
        }

        func unbind(_ bound: [UInt8], token: String, grant: GrantContext) throws -> GrantSecret {
            GrantSecret(
                try vault.wrappedKey(
                    from: TokenBoundKey(bytes: bound), token: token, context: VaultSeamTests.context(grant)
                )
                .bytes)
        }
    }

    static func context(_ grant: GrantContext) -> SealContext {
        SealContext(purpose: purpose, userId: grant.userID, grantId: grant.grantID)
    }

    @Test func realVaultSealsBindsAndUnsealsThroughTheFlow() async throws {
        let keys = try LocalKeyService(keys: [(id: "k1", key: .random())])
        let vault = Vault(keyService: keys, bindingSecret: .random())
        let harness = try await OAuthHarness.start(vault: (VaultSealer(vault: vault), VaultBinder(vault: vault)))
        do {
            let tokens = try await harness.connect()
            let refreshed = try Tokens(
                try await harness.refresh(try #require(tokens.refreshToken), clientID: tokens.clientID),
                clientID: tokens.clientID)
            for token in [tokens.accessToken, refreshed.accessToken] {
                let grant = try await harness.oauth.validateBearer(OAuthHarness.bearerRequest(token))
                let context = Self.context(GrantContext(userID: grant.userID, grantID: grant.grantID))
                let plain = try await vault.unseal(
                    RelayVault.SealedGrant(bytes: grant.sealed), tokenBoundKey: TokenBoundKey(bytes: grant.boundSecret),
                    token: token, context: context)
                #expect(String(decoding: plain, as: UTF8.self).hasPrefix("106__54__"))
                // The binding opens only with its own token.
                await #expect(throws: VaultError.self) {
                    try await vault.unseal(
                        RelayVault.SealedGrant(bytes: grant.sealed),
                        tokenBoundKey: TokenBoundKey(bytes: grant.boundSecret),
                        token: TokenKind.accessToken.generate(), context: context)
                }
            }
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }
}
