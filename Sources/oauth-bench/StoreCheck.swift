import Foundation
import RelayJSON
import RelayStore

/// A check of SQLiteStore alone, as the OAuth flows use it: puts, concurrent gets, then concurrent
/// put → conditional update → get → conditional delete on items shaped like pending requests,
/// every answer compared with what was written. `STORE_CHECK=get|update|all` picks how far it goes.
/// `bench/oauth` runs it first: a SQLiteStore before 34fb260 crashed in its delete path in release
/// builds only, which no debug test showed.
enum StoreCheck {
    static func run(path: String) async throws {
        let store: any Store = try await SQLiteStore.open(path: path)
        for i in 0..<500 {
            _ = try await store.put(
                ItemKey(pk: "K#\(i)", sk: "META"), attributes: ["a": .string("value-\(i)"), "n": .int(i)],
                expiresAt: nil,
                condition: .none)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<2000 {
                        let i = (round * 8 + worker) % 500
                        let item = try await store.get(ItemKey(pk: "K#\(i)", sk: "META"))
                        precondition(item?.attributes["a"]?.stringValue == "value-\(i)", "wrong item")
                    }
                }
            }
            try await group.waitForAll()
        }
        // Conditional updates and deletes, as the OAuth flows do them.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<300 {
                        let key = ItemKey(pk: "W#\(worker)#\(round)", sk: "META")
                        let attributes: JSONObject = [
                            "purpose": "authorize", "status": "pending",
                            "binding": .string(String(repeating: "b", count: 43)),
                            "redirect_explicit": true, "uris": ["https://a/b", "https://c/d"], "created": .int(round),
                        ]
                        let item = try await store.put(
                            key, attributes: attributes, expiresAt: 4_000_000_000, condition: .absent)
                        let mode = ProcessInfo.processInfo.environment["STORE_CHECK"] ?? ""
                        if mode == "get" {
                            let again = try await store.get(key)
                            precondition(again?.version == item.version, "wrong get")
                            continue
                        }
                        let updated = try await store.update(
                            key,
                            ItemUpdate(set: ["status": "consented", "consented": .int(round)], remove: ["binding"]),
                            condition: .versionEquals(item.version))
                        precondition(updated.attributes["status"]?.stringValue == "consented", "wrong update result")
                        if mode == "update" { continue }
                        let again = try await store.get(key)
                        precondition(again?.attributes["status"]?.stringValue == "consented", "wrong update")
                        let deleted = try await store.delete(key, condition: .versionEquals(updated.version))
                        precondition(deleted?.attributes["consented"]?.intValue == round, "wrong delete")
                    }
                }
            }
            try await group.waitForAll()
        }
        print("store check: ok")
    }
}
