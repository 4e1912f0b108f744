import RelayJSON
import RelayStore

extension StoreConformance {
    static let sampleAttributes: JSONObject = [
        "string": "text with \"quotes\", \\ and é✓ 🎉", "empty": "", "int": 42, "negative": -7,
        "large": .int(Int(Int64.max)), "fraction": 0.25, "true": true, "false": false, "null": nil,
        "array": [1, "two", [3], ["four": 4]], "object": ["nested": ["deep": "value"], "list": []],
    ]

    static var writeCases: [Case] {
        [
            Case(name: "put then get returns the item at version 1") { context in
                let key = ItemKey(pk: context.partition("put"), sk: "META")
                let stored = try await context.store.put(
                    key, attributes: sampleAttributes, expiresAt: context.now + 3600, condition: .absent)
                try expect(stored.version == 1, "a new item starts at version 1, got \(stored.version)")
                let read = try await context.store.get(key)
                try expect(sameItem(read, stored), "get returns what put stored")
                try expect(read?.expiresAt == context.now + 3600, "expiresAt round-trips")
                try expect(
                    sameJSON(.object(read?.attributes ?? [:]), .object(sampleAttributes)),
                    "every JSON type round-trips")
            },
            Case(name: "get of a missing key returns nil") { context in
                let item = try await context.store.get(ItemKey(pk: context.partition("missing"), sk: "META"))
                try expect(item == nil, "missing key reads as nil")
            },
            Case(name: "every write adds one to the version") { context in
                let key = ItemKey(pk: context.partition("versions"), sk: "META")
                var versions: [Int] = []
                versions.append(try await context.store.put(key, attributes: ["a": 1]).version)
                versions.append(try await context.store.update(key, ItemUpdate(set: ["b": 2])).version)
                versions.append(try await context.store.update(key, ItemUpdate()).version)
                versions.append(try await context.store.put(key, attributes: ["c": 3]).version)
                try expect(versions == [1, 2, 3, 4], "versions were \(versions)")
                let read = try await context.store.get(key)
                try expect(read?.version == 4, "stored version is 4")
                try expect(read?.attributes.keys == ["c"], "put replaces all attributes")
            },
            Case(name: "update sets, replaces and removes attributes and changes expiry") { context in
                let key = ItemKey(pk: context.partition("update"), sk: "META")
                _ = try await context.store.put(key, attributes: ["keep": 1, "replace": "old", "drop": true])
                let updated = try await context.store.update(
                    key,
                    ItemUpdate(
                        set: ["replace": "new", "add": ["x": 1]], remove: ["drop", "absent"],
                        expiresAt: .set(context.now + 60)))
                let expected: JSONObject = ["keep": 1, "replace": "new", "add": ["x": 1]]
                try expect(sameJSON(.object(updated.attributes), .object(expected)), "merged attributes")
                try expect(updated.expiresAt == context.now + 60 && updated.version == 2, "expiry set, version 2")
                let read = try await context.store.get(key)
                try expect(sameItem(read, updated), "get sees the update")
                let unchanged = try await context.store.update(key, ItemUpdate(set: ["more": 1]))
                try expect(unchanged.expiresAt == context.now + 60, "expiry unchanged by default")
                let cleared = try await context.store.update(key, ItemUpdate(expiresAt: .clear))
                try expect(cleared.expiresAt == nil, "expiry cleared")
                try expect(try await context.store.get(key)?.expiresAt == nil, "cleared expiry is stored")
            },
            Case(name: "keys compare by UTF-8 bytes, not canonical equivalence") { context in
                let pk = context.partition("bytes")
                let composed = ItemKey(pk: pk, sk: "caf\u{E9}")
                let decomposed = ItemKey(pk: pk, sk: "cafe\u{301}")
                _ = try await context.store.put(composed, attributes: ["form": "composed"], condition: .absent)
                _ = try await context.store.put(decomposed, attributes: ["form": "decomposed"], condition: .absent)
                try expect(try await context.store.get(composed)?.attributes["form"] == "composed", "composed key")
                try expect(
                    try await context.store.get(decomposed)?.attributes["form"] == "decomposed", "decomposed key")
                let page = try await context.store.query(Query(pk: pk))
                try expect(page.items.count == 2, "two distinct items, got \(page.items.count)")
            },
            Case(name: "malformed requests are invalid and change nothing") { context in
                let pk = context.partition("invalid")
                let key = ItemKey(pk: pk, sk: "META")
                _ = try await context.store.put(key, attributes: ["a": 1])
                let store = context.store
                try await expectInvalid { try await store.put(ItemKey(pk: "", sk: "META"), attributes: [:]) }
                try await expectInvalid { try await store.put(ItemKey(pk: pk, sk: ""), attributes: [:]) }
                try await expectInvalid {
                    try await store.get(ItemKey(pk: String(repeating: "k", count: 1025), sk: "META"))
                }
                try await expectInvalid { try await store.update(key, ItemUpdate(set: ["a": 2]), condition: .absent) }
                try await expectInvalid { try await store.update(key, ItemUpdate(set: ["a": 2], remove: ["a"])) }
                try await expectInvalid { try await store.delete(key, condition: .absent) }
                try await expectInvalid { try await store.put(key, attributes: [:], expiresAt: -1) }
                try await expectInvalid {
                    try await store.put(key, attributes: ["big": .string(String(repeating: "x", count: 400_000))])
                }
                try await expectInvalid { try await store.query(Query(pk: pk, limit: 0)) }
                try await expectInvalid { try await store.query(Query(pk: pk, limit: Query.maximumLimit + 1)) }
                try await expectInvalid { try await store.query(Query(pk: "")) }
                let read = try await store.get(key)
                try expect(read?.version == 1 && read?.attributes == ["a": 1], "the item is untouched")
            },
        ]
    }
}
