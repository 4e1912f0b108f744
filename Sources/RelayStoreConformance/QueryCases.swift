import RelayJSON
import RelayStore

extension StoreConformance {
    static var queryCases: [Case] {
        [
            Case(name: "query selects by sort-key prefix within one partition, in both orders") { context in
                let pk = context.partition("prefix")
                let other = context.partition("prefix-other")
                for sk in [
                    "GRANT#b", "GRANT#a", "GRANT", "GRANTX", "GRANT#c", "META", "TOKEN#1", "50%_a", "50%xa", "50%_b",
                ] {
                    _ = try await context.store.put(ItemKey(pk: pk, sk: sk), attributes: ["sk": .string(sk)])
                }
                _ = try await context.store.put(ItemKey(pk: other, sk: "GRANT#z"), attributes: [:])
                let ascending = try await context.store.query(Query(pk: pk, skPrefix: "GRANT#"))
                try expect(
                    ascending.items.map(\.sk) == ["GRANT#a", "GRANT#b", "GRANT#c"],
                    "ascending: \(ascending.items.map(\.sk))")
                try expect(ascending.next == nil, "nothing more")
                try expect(
                    ascending.items.allSatisfy { $0.pk == pk && $0.attributes["sk"] == .string($0.sk) }, "full items")
                let descending = try await context.store.query(Query(pk: pk, skPrefix: "GRANT#", order: .descending))
                try expect(descending.items.map(\.sk) == ["GRANT#c", "GRANT#b", "GRANT#a"], "descending")
                let exact = try await context.store.query(Query(pk: pk, skPrefix: "GRANT"))
                try expect(
                    exact.items.map(\.sk) == ["GRANT", "GRANT#a", "GRANT#b", "GRANT#c", "GRANTX"],
                    "prefix includes itself")
                let wildcards = try await context.store.query(Query(pk: pk, skPrefix: "50%_"))
                try expect(
                    wildcards.items.map(\.sk) == ["50%_a", "50%_b"], "% and _ are literal: \(wildcards.items.map(\.sk))"
                )
                let all = try await context.store.query(Query(pk: pk))
                try expect(all.items.count == 10, "empty prefix reads the partition")
                let none = try await context.store.query(Query(pk: pk, skPrefix: "NOPE"))
                try expect(none.items.isEmpty && none.next == nil, "no match")
                let empty = try await context.store.query(Query(pk: context.partition("empty")))
                try expect(empty.items.isEmpty && empty.next == nil, "empty partition")
            },
            Case(name: "sort keys order by UTF-8 bytes") { context in
                let pk = context.partition("utf8")
                for sk in ["\u{3A9}", "z", "\u{E9}", "e\u{301}", "Z", "a"] {
                    _ = try await context.store.put(ItemKey(pk: pk, sk: sk), attributes: [:])
                }
                let page = try await context.store.query(Query(pk: pk))
                let bytes = page.items.map { Array($0.sk.utf8) }
                let expected = [[0x5A], [0x61], [0x65, 0xCC, 0x81], [0x7A], [0xC3, 0xA9], [0xCE, 0xA9]].map {
                    $0.map(UInt8.init)
                }
                try expect(bytes == expected, "byte order, got \(bytes)")
            },
            Case(name: "paging returns every item once, in order, in both directions") { context in
                let pk = context.partition("paging")
                let all = (0..<25).map { "ITEM#" + ($0 < 10 ? "0" : "") + String($0) }
                for sk in all.shuffled() { _ = try await context.store.put(ItemKey(pk: pk, sk: sk), attributes: [:]) }
                _ = try await context.store.put(ItemKey(pk: pk, sk: "OTHER"), attributes: [:])
                for order in [QueryOrder.ascending, .descending] {
                    var query = Query(pk: pk, skPrefix: "ITEM#", order: order, limit: 7)
                    var seen: [String] = []
                    for _ in 0..<10 {
                        let page = try await context.store.query(query)
                        try expect(page.items.count <= 7, "page within limit")
                        seen += page.items.map(\.sk)
                        guard let next = page.next else { break }
                        query.cursor = next
                    }
                    try expect(seen == (order == .ascending ? all : all.reversed()), "\(order) pages: \(seen)")
                }
                let collected = try await context.store.queryAll(Query(pk: pk, skPrefix: "ITEM#", limit: 1))
                try expect(collected.map(\.sk) == all, "queryAll follows cursors")
            },
            Case(name: "paging stays consistent when items change between pages") { context in
                let pk = context.partition("paging-changes")
                for index in 0..<10 {
                    _ = try await context.store.put(ItemKey(pk: pk, sk: "K\(index)"), attributes: [:])
                }
                let first = try await context.store.query(Query(pk: pk, limit: 4))
                try expect(first.items.map(\.sk) == ["K0", "K1", "K2", "K3"] && first.next != nil, "first page")
                _ = try await context.store.delete(ItemKey(pk: pk, sk: "K4"))
                _ = try await context.store.put(ItemKey(pk: pk, sk: "K0a"), attributes: [:])
                _ = try await context.store.put(ItemKey(pk: pk, sk: "K5a"), attributes: [:])
                var rest: [String] = []
                var cursor = first.next
                while let current = cursor {
                    let page = try await context.store.query(Query(pk: pk, limit: 4, cursor: current))
                    rest += page.items.map(\.sk)
                    cursor = page.next
                }
                try expect(rest == ["K5", "K5a", "K6", "K7", "K8", "K9"], "after the cursor only: \(rest)")
            },
        ]
    }
}
