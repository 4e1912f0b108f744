import Foundation
import RelayHTTP
import RelayJSON
import RelayOAuth
import RelayStore
import RelayVault

/// `oauth-bench`: the cost of bearer validation per MCP request (store reads, key-service calls,
/// time) and the token endpoint's throughput, on a real SQLite file, driven through the router in
/// process so the numbers are the authorization server's, not the sockets'. `bench/oauth` runs it.
@main
struct Bench {
    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        let grants = Int(environment["GRANTS"] ?? "") ?? 200
        let validations = Int(environment["VALIDATIONS"] ?? "") ?? 50_000
        let concurrency = Int(environment["CONCURRENCY"] ?? "") ?? 8
        let directory = NSTemporaryDirectory() + "oauth-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        if environment["STORE_CHECK"] != nil {
            try await StoreCheck.run(path: directory + "/check.sqlite")
            return
        }
        let sqlite =
            environment["STORE"] == "memory" ? nil : try await SQLiteStore.open(path: directory + "/relay.sqlite")
        let store = CountingStore(sqlite ?? MemoryStore())
        let keys = CountingKeyService(try LocalKeyService(keys: [(id: "k1", key: .random())]))
        let vault = Vault(keyService: keys, bindingSecret: .random())
        let seams = VaultSeams(vault: vault)
        var configuration = OAuthConfiguration(issuer: "https://relay.example")
        // One "address" opens every flow.
        configuration.pageRateLimit = .init(requests: 1_000_000, window: .seconds(60))
        let oauth = AuthorizationServer(
            configuration: configuration, store: store, secrets: .random(),
            signIn: BenchSignIn(), sealer: seams, binder: seams)
        var router = Router()
        oauth.register(on: &router)
        let flow = Flow(router: router, callbackPath: oauth.configuration.callbackPath)
        let clock = ContinuousClock()
        print(
            "oauth-bench: \(sqlite == nil ? "MemoryStore" : "SQLite (synchronous=FULL)"), \(grants) grants, "
                + "\(validations) validations, concurrency \(concurrency)"
        )

        // 1. Full connect flows: DCR once, then authorize + consent + callback + code exchange.
        let clientID = try await flow.register()
        var sessions: [(access: String, refresh: String)] = []
        let connectTime = try await clock.measure {
            for user in 0..<grants {
                let tokens = try await flow.connect(clientID: clientID, user: user)
                sessions.append((tokens["access_token"]!.stringValue!, tokens["refresh_token"]!.stringValue!))
            }
        }
        report("connect flow (authorize → token)", count: grants, time: connectTime)

        // 2. Bearer validation + unseal with a warm key cache: what every MCP request pays.
        for session in sessions { _ = try await validateAndUnseal(oauth, vault, session.access) }
        let readsBefore = store.reads.load(ordering: .relaxed)
        let keyCallsBefore = keys.calls.load(ordering: .relaxed)
        let tokens = sessions.map(\.access)
        let validationTime = try await clock.measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<concurrency {
                    group.addTask {
                        for index in stride(from: worker, to: validations, by: concurrency) {
                            _ = try await validateAndUnseal(oauth, vault, tokens[index % tokens.count])
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let reads = Double(store.reads.load(ordering: .relaxed) - readsBefore) / Double(validations)
        let keyCalls = keys.calls.load(ordering: .relaxed) - keyCallsBefore
        report("bearer validation + unseal (warm cache)", count: validations, time: validationTime)
        print(String(format: "  store reads per request: %.2f, key-service calls: %d", reads, keyCalls))

        // 3. Refresh rotation, sequential then concurrent (group commit shares fsyncs).
        let half = sessions.count / 2
        let sequential = Array(sessions[..<half])
        let sequentialTime = try await clock.measure {
            for session in sequential { _ = try await flow.refresh(session.refresh, clientID: clientID) }
        }
        report("refresh rotation, one at a time", count: sequential.count, time: sequentialTime)
        let parallel = Array(sessions[half...])
        let writesBefore = store.writes.load(ordering: .relaxed)
        let parallelTime = try await clock.measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<concurrency {
                    group.addTask {
                        for index in stride(from: worker, to: parallel.count, by: concurrency) {
                            _ = try await flow.refresh(parallel[index].refresh, clientID: clientID)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        report("refresh rotation, \(concurrency) at a time", count: parallel.count, time: parallelTime)
        print(
            String(
                format: "  store writes per refresh: %.1f; ratio concurrent/sequential throughput: %.2f",
                Double(store.writes.load(ordering: .relaxed) - writesBefore) / Double(parallel.count),
                (Double(parallel.count) / seconds(parallelTime)) / (Double(sequential.count) / seconds(sequentialTime)))
        )
        await sqlite?.close()
    }

    static func validateAndUnseal(_ oauth: AuthorizationServer, _ vault: Vault, _ token: String) async throws -> Int {
        let request = Request(method: .post, target: "/mcp", headers: ["authorization": "Bearer " + token])
        let grant = try await oauth.validateBearer(request)
        let plain = try await vault.unseal(
            RelayVault.SealedGrant(bytes: grant.sealed), tokenBoundKey: TokenBoundKey(bytes: grant.boundSecret),
            token: token,
            context: VaultSeams.context(GrantContext(userID: grant.userID, grantID: grant.grantID)))
        return plain.count
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func report(_ name: String, count: Int, time: Duration) {
        let total = seconds(time)
        let padded = name.count < 42 ? name + String(repeating: " ", count: 42 - name.count) : name
        print(
            padded
                + String(
                    format: " %8d ops %9.0f ops/s %9.1f µs/op", count, Double(count) / total,
                    total / Double(count) * 1e6))
    }
}
