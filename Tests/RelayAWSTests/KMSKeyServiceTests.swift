import Foundation
import RelayCrypto
import RelayHTTP
import RelayTestSupport
import RelayVault
import Testing

@testable import RelayAWS

/// `KMSKeyService` on moto's KMS: the vault seals and unseals through it, a wrong encryption
/// context fails as the vault's authentication failure, and a KMS that is down or hung is a typed
/// error, quickly.
@Suite struct KMSKeyServiceTests {
    let context = SealContext(purpose: "cloudkit-web-auth-token", userId: "user-hmac", grantId: "grant-1")
    let secret = Array("ckWebAuthToken-value-0123456789".utf8)

    /// A new KMS key on the shared moto, and its alias `alias/<name>`.
    static func makeKey(alias: String? = nil) async throws -> (endpoint: String, keyID: String) {
        let moto = try await AWSTestSupport.moto()
        let kms = try AWSJSONClient(
            service: "kms", http: AWSTestSupport.httpClient,
            configuration: AWSTestSupport.configuration(endpoint: moto.endpoint),
            contentType: "application/x-amz-json-1.1", targetPrefix: "TrentService")
        let created = try await kms.call("CreateKey", ["Description": "relay test key"])
        let keyID = try #require(created["KeyMetadata"]?["KeyId"]?.stringValue)
        if let alias {
            _ = try await kms.call(
                "CreateAlias", ["AliasName": .string("alias/\(alias)"), "TargetKeyId": .string(keyID)])
        }
        return (moto.endpoint, keyID)
    }

    static func service(endpoint: String, keyID: String, timeout: Duration = .seconds(30)) throws -> KMSKeyService {
        try KMSKeyService(
            keyID: keyID,
            configuration: AWSTestSupport.configuration(
                endpoint: endpoint, requestTimeout: timeout, retry: RetryPolicy(baseDelay: .milliseconds(10))),
            httpClient: AWSTestSupport.httpClient)
    }

    @Test func vaultSealsAndUnsealsThroughKMS() async throws {
        let (endpoint, keyID) = try await Self.makeKey()
        let keys = try Self.service(endpoint: endpoint, keyID: keyID)
        var configuration = Vault.Configuration()
        configuration.cacheTTL = .zero  // every unseal calls KMS Decrypt
        let vault = Vault(keyService: keys, bindingSecret: SymmetricKey.random(), configuration: configuration)
        let sealed = try await vault.seal(secret, context: context)
        let token = PrefixedToken.generate(prefix: "mdr_at_")
        let bound = try vault.bindToToken(sealed.wrappedKey, token: token, context: context)
        #expect(try await vault.unseal(sealed.grant, tokenBoundKey: bound, token: token, context: context) == secret)
        #expect(sealed.wrappedKey.bytes.count > 32, "the wrapped key is a KMS ciphertext blob")
        #expect(!sealed.grant.bytes.contains(subsequence: secret), "the grant holds no plaintext")

        let direct = try await keys.generateDataKey(context: context.encryptionContext)
        #expect(try await keys.unwrap(direct.wrapped, context: context.encryptionContext) == direct.plaintext)
    }

    @Test func aliasNamesTheKey() async throws {
        let alias = "mustdo-relay-\(UInt32.random(in: 0...UInt32.max))"
        let (endpoint, _) = try await Self.makeKey(alias: alias)
        let keys = try Self.service(endpoint: endpoint, keyID: "alias/\(alias)")
        let dataKey = try await keys.generateDataKey(context: context.encryptionContext)
        #expect(try await keys.unwrap(dataKey.wrapped, context: context.encryptionContext) == dataKey.plaintext)
    }

    @Test func aWrongContextFailsAuthentication() async throws {
        let (endpoint, keyID) = try await Self.makeKey()
        let keys = try Self.service(endpoint: endpoint, keyID: keyID)
        let dataKey = try await keys.generateDataKey(context: context.encryptionContext)
        let others = [
            SealContext(purpose: "other", userId: context.userId, grantId: context.grantId),
            SealContext(purpose: context.purpose, userId: "someone-else", grantId: context.grantId),
            SealContext(purpose: context.purpose, userId: context.userId, grantId: "grant-2"),
            SealContext(purpose: context.purpose, userId: context.userId, grantId: context.grantId, keyVersion: 2),
        ]
        for other in others {
            await #expect(throws: VaultError.authenticationFailed) {
                try await keys.unwrap(dataKey.wrapped, context: other.encryptionContext)
            }
        }
        await #expect(throws: VaultError.authenticationFailed) {
            try await keys.unwrap(dataKey.wrapped, context: [:])
        }
        var altered = dataKey.wrapped.bytes
        altered[altered.count - 1] ^= 1
        await #expect(throws: VaultError.authenticationFailed) {
            try await keys.unwrap(WrappedKey(bytes: altered), context: context.encryptionContext)
        }

        // Through the vault: a binding made for another context still cannot open the data key.
        let vault = Vault(keyService: keys, bindingSecret: SymmetricKey.random())
        let sealed = try await vault.seal(secret, context: context)
        let token = PrefixedToken.generate(prefix: "mdr_at_")
        let other = others[2]
        let rebound = try vault.bindToToken(sealed.wrappedKey, token: token, context: other)
        await #expect(throws: VaultError.authenticationFailed) {
            try await vault.unseal(sealed.grant, tokenBoundKey: rebound, token: token, context: other)
        }
    }

    @Test func anUnknownKeyIsUnavailable() async throws {
        let (endpoint, _) = try await Self.makeKey()
        let keys = try Self.service(endpoint: endpoint, keyID: "00000000-0000-0000-0000-000000000000")
        await expectUnavailable { try await keys.generateDataKey(context: context.encryptionContext) }
    }

    @Test func kmsStoppedIsATypedErrorQuickly() async throws {
        let moto = try await MotoServer()
        let keyID = try await {
            let kms = try AWSJSONClient(
                service: "kms", http: AWSTestSupport.httpClient,
                configuration: AWSTestSupport.configuration(endpoint: moto.endpoint),
                contentType: "application/x-amz-json-1.1", targetPrefix: "TrentService")
            return try #require(try await kms.call("CreateKey", [:])["KeyMetadata"]?["KeyId"]?.stringValue)
        }()
        let keys = try Self.service(endpoint: moto.endpoint, keyID: keyID)
        let dataKey = try await keys.generateDataKey(context: context.encryptionContext)
        await moto.stop()
        let started = ContinuousClock.now
        await expectUnavailable { try await keys.unwrap(dataKey.wrapped, context: context.encryptionContext) }
        await expectUnavailable { try await keys.generateDataKey(context: context.encryptionContext) }
        #expect(ContinuousClock.now - started < .seconds(20), "refused connections fail fast, retries included")
    }

    @Test func hungKMSTimesOut() async throws {
        let silent = try SilentEndpoint()
        let keys = try Self.service(endpoint: silent.endpoint, keyID: "alias/mustdo-relay", timeout: .milliseconds(300))
        await expectUnavailable { try await keys.generateDataKey(context: context.encryptionContext) }
    }

    func expectUnavailable<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            _ = try await body()
            Issue.record("expected keyServiceUnavailable", sourceLocation: sourceLocation)
        } catch VaultError.keyServiceUnavailable {
        } catch {
            Issue.record("expected keyServiceUnavailable, got \(error)", sourceLocation: sourceLocation)
        }
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
