import Foundation
import RelayCrypto
import RelayJSON
import RelayStore

/// Loads a small and a large table, then measures both in alternating rounds, so load from other
/// processes on a shared machine hits both sizes alike; reports the median of each percentile.
enum SQLiteBench {
    /// One loaded table being measured.
    final class Table {
        let items: Int
        let keys: [ItemKey]
        let store: SQLiteStore
        var versions: [Int]
        var get: [Latency] = []
        var update: [Latency] = []

        init(items: Int, keys: [ItemKey], store: SQLiteStore) {
            self.items = items
            self.keys = keys
            self.store = store
            self.versions = [Int](repeating: 1, count: items)
        }
    }

    static func run(directory: String, sizes: [Int], samples: Int, rounds: Int) async throws {
        var tables: [Table] = []
        for items in sizes { tables.append(try await load(directory: directory, items: items)) }
        for round in 1...rounds {
            for table in tables {
                try await measure(table, samples: samples)
                print(table.get.last!.line("round=\(round) sqlite_get items=\(table.items)"))
                print(table.update.last!.line("round=\(round) sqlite_conditional_update items=\(table.items)"))
            }
        }
        for table in tables {
            print(Latency.medianLine("sqlite_get items=\(table.items)", table.get))
            print(Latency.medianLine("sqlite_conditional_update items=\(table.items)", table.update))
            await table.store.close()
        }
    }

    static func load(directory: String, items: Int) async throws -> Table {
        let path = directory + "/bench-\(items).db"
        let keys = (0..<items).map { ItemKey(pk: "TOKEN#" + Base64URL.encode(SHA256.hash("token \($0)")), sk: "META") }
        // Load with NORMAL sync (faster, same file), then measure with the default FULL.
        var loading = SQLiteStore.Configuration(path: path)
        loading.synchronous = .normal
        loading.purgeInterval = nil
        let loader = try await SQLiteStore.open(loading)
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<256 {
                group.addTask {
                    for index in stride(from: worker, to: items, by: 256) {
                        _ = try await loader.put(
                            keys[index], attributes: record(index), expiresAt: nil, condition: .absent)
                    }
                }
            }
            try await group.waitForAll()
        }
        print("loaded items=\(items) seconds=\(Double(Int((ContinuousClock.now - started) / .milliseconds(100))) / 10)")
        await loader.close()
        var configuration = SQLiteStore.Configuration(path: path)
        configuration.purgeInterval = nil
        let table = Table(items: items, keys: keys, store: try await SQLiteStore.open(configuration))
        for _ in 0..<1000 { _ = try await table.store.get(keys[Int.random(in: 0..<items)]) }  // warm up
        return table
    }

    static func measure(_ table: Table, samples: Int) async throws {
        var get = Latency()
        for _ in 0..<samples {
            let key = table.keys[Int.random(in: 0..<table.items)]
            guard try await get.measure({ try await table.store.get(key) }) != nil else { fatalError("missing item") }
        }
        var update = Latency()
        for _ in 0..<max(1, samples / 4) {
            let index = Int.random(in: 0..<table.items)
            let change = ItemUpdate(set: ["lastUsedAt": .int(Int(Date().timeIntervalSince1970))])
            let version = table.versions[index]
            _ = try await update.measure {
                try await table.store.update(table.keys[index], change, condition: .versionEquals(version))
            }
            table.versions[index] += 1
        }
        table.get.append(get)
        table.update.append(update)
    }

    /// About the size of an access-token record (~300 bytes of JSON).
    static func record(_ index: Int) -> JSONObject {
        [
            "grantId": .string(Base64URL.encode(SHA256.hash("grant \(index / 3)"))),
            "clientId": .string("client-\(index % 97)"), "scope": "todos", "pepperVersion": 1,
            "resource": "https://relay.example/mcp", "issuedAt": .int(1_800_000_000 + index),
            "tokenBoundKey": .string(
                Base64URL.encode(SHA256.hash("k\(index)") + SHA256.hash("v\(index)") + SHA256.hash("w"))),
        ]
    }
}
