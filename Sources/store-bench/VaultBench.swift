import RelayCrypto
import RelayStore
import RelayVault

enum VaultBench {
    static func run(samples: Int) async throws {
        let keyService = try LocalKeyService(keys: [("k1", SymmetricKey.random())])
        let secret = [UInt8](repeating: 0x41, count: 200)  // a CloudKit web auth token is a few hundred bytes
        let context = SealContext(purpose: "cloudkit-web-auth-token", userId: "user", grantId: "grant")
        let bindingSecret = SymmetricKey.random()
        for (name, ttl) in [
            ("vault_unseal_cold_local_key_service", Duration.zero), ("vault_unseal_warm_cache", .seconds(300)),
        ] {
            var configuration = Vault.Configuration()
            configuration.cacheTTL = ttl
            let vault = Vault(keyService: keyService, bindingSecret: bindingSecret, configuration: configuration)
            let sealed = try await vault.seal(secret, context: context)
            let token = PrefixedToken.generate(prefix: "mdr_at_")
            let bound = try vault.bindToToken(sealed.wrappedKey, token: token, context: context)
            for _ in 0..<1000 {
                _ = try await vault.unseal(sealed.grant, tokenBoundKey: bound, token: token, context: context)
            }
            var latency = Latency()
            for _ in 0..<samples {
                let opened = try await latency.measure {
                    try await vault.unseal(sealed.grant, tokenBoundKey: bound, token: token, context: context)
                }
                precondition(opened == secret)
            }
            print(latency.line(name))
        }
    }
}
