import RelayJSON
import RelayStore

extension StoreConformance {
    static var scanCases: [Case] {
        [
            Case(name: "scan returns every live item under a partition-key prefix once, across pages") { context in
                let base = context.partition("scan")
                let prefix = base + "/"
                var expected: Set<ItemKey> = []
                for partition in ["a", "b", "c", "\u{E9}"] {
                    for sk in ["META", "X#1", "X#2"] {
                        let key = ItemKey(pk: prefix + partition, sk: sk)
                        _ = try await context.store.put(key, attributes: ["sk": .string(sk)])
                        expected.insert(key)
                    }
                }
                _ = try await context.store.put(
                    ItemKey(pk: prefix + "expiring", sk: "META"), attributes: [:], expiresAt: context.now + 10)
                // Neighbours that share the start of the prefix but not all of it.
                _ = try await context.store.put(ItemKey(pk: base, sk: "META"), attributes: [:])
                _ = try await context.store.put(ItemKey(pk: base + "0", sk: "META"), attributes: [:])
                _ = try await context.store.put(ItemKey(pk: base + ".", sk: "META"), attributes: [:])
                context.clock.advance(by: 10)

                let seen = try await scanKeys(context.store, prefix: prefix, limit: 5)
                try expect(
                    seen.count == Set(seen).count, "an item came back twice: \(seen.count) for \(Set(seen).count)")
                try expect(Set(seen) == expected, "scan found \(seen.count) of \(expected.count) items")
                let all = try await context.store.scanAll(pkPrefix: prefix)
                try expect(Set(all.map(\.key)) == expected, "scanAll follows cursors")
                try expect(
                    all.allSatisfy { $0.version == 1 && $0.attributes["sk"] == .string($0.sk) && $0.expiresAt == nil },
                    "whole items come back")
            },
            Case(name: "scan sees the current state when items change between pages") { context in
                let prefix = context.partition("scan-changes") + "/"
                var remaining: Set<ItemKey> = []
                for index in 0..<12 {
                    let key = ItemKey(pk: prefix + "P\(index < 10 ? "0" : "")\(index)", sk: "META")
                    _ = try await context.store.put(key, attributes: ["n": .int(index)])
                    remaining.insert(key)
                }
                var seen: [ItemKey] = []
                var cursor: ScanCursor?
                var deleted: ItemKey?
                var pages = 0
                repeat {
                    let page = try await context.store.scan(pkPrefix: prefix, cursor: cursor, limit: 4)
                    try expect(page.items.count <= 4, "a page holds at most the limit")
                    seen += page.items.map(\.key)
                    remaining.subtract(page.items.map(\.key))
                    if deleted == nil, !seen.isEmpty, let victim = remaining.first {
                        // Delete an item the scan has not reached yet: it must not come back.
                        _ = try await context.store.delete(victim)
                        remaining.remove(victim)
                        deleted = victim
                    }
                    cursor = page.next
                    pages += 1
                } while cursor != nil && pages < 100_000
                try expect(cursor == nil, "the scan ended")
                try expect(deleted != nil, "an item was deleted mid-scan")
                try expect(!seen.contains(deleted!), "a deleted item came back")
                try expect(remaining.isEmpty, "\(remaining.count) unchanged items were never returned")
                try expect(seen.count == Set(seen).count, "an item came back twice")
                try expect(seen.count == 11, "eleven items, got \(seen.count)")
            },
            Case(name: "scan of a prefix nothing has is empty and ends") { context in
                let items = try await context.store.scanAll(pkPrefix: context.partition("scan-nothing") + "/")
                try expect(items.isEmpty, "found \(items.count) items")
            },
            Case(name: "scan with an empty prefix reaches every partition") { context in
                let a = ItemKey(pk: context.partition("scan-all-a"), sk: "META")
                let b = ItemKey(pk: context.partition("scan-all-b"), sk: "OTHER")
                _ = try await context.store.put(a, attributes: [:])
                _ = try await context.store.put(b, attributes: [:])
                let keys = Set(try await scanKeys(context.store, prefix: "", limit: Query.maximumLimit))
                try expect(keys.contains(a) && keys.contains(b), "both partitions are in a whole-store scan")
            },
            Case(name: "scan refuses a bad limit or prefix") { context in
                try await expectInvalid { try await context.store.scan(pkPrefix: "", cursor: nil, limit: 0) }
                try await expectInvalid {
                    try await context.store.scan(pkPrefix: "", cursor: nil, limit: Query.maximumLimit + 1)
                }
                try await expectInvalid {
                    try await context.store.scan(
                        pkPrefix: String(repeating: "p", count: 1025), cursor: nil, limit: 10)
                }
            },
        ]
    }

    /// Every key a scan returns, page by page, each page checked against the limit.
    private static func scanKeys(_ store: any Store, prefix: String, limit: Int) async throws -> [ItemKey] {
        var keys: [ItemKey] = []
        var cursor: ScanCursor?
        var pages = 0
        repeat {
            let page = try await store.scan(pkPrefix: prefix, cursor: cursor, limit: limit)
            try expect(page.items.count <= limit, "a page of \(page.items.count) items for limit \(limit)")
            try expect(
                page.items.allSatisfy { $0.pk.utf8.starts(with: prefix.utf8) }, "an item outside the prefix came back")
            keys += page.items.map(\.key)
            cursor = page.next
            pages += 1
        } while cursor != nil && pages < 100_000
        try expect(cursor == nil, "the scan did not end")
        return keys
    }
}
