import RelayJSON
import RelayStore

extension StoreConformance {
    static var conditionCases: [Case] {
        [
            Case(name: "put absent creates once; a second put absent fails and changes nothing") { context in
                let key = ItemKey(pk: context.partition("absent"), sk: "META")
                let first = try await context.store.put(key, attributes: ["n": 1], expiresAt: nil, condition: .absent)
                try await expectError(.conditionFailed) {
                    try await context.store.put(key, attributes: ["n": 2], expiresAt: 5, condition: .absent)
                }
                try expect(sameItem(try await context.store.get(key), first), "the first item is untouched")
            },
            Case(name: "put with version or existence conditions") { context in
                let key = ItemKey(pk: context.partition("putcas"), sk: "META")
                try await expectError(.conditionFailed) {
                    try await context.store.put(key, attributes: [:], expiresAt: nil, condition: .exists)
                }
                try await expectError(.conditionFailed) {
                    try await context.store.put(key, attributes: [:], expiresAt: nil, condition: .versionEquals(1))
                }
                try expect(try await context.store.get(key) == nil, "failed conditions created nothing")
                _ = try await context.store.put(key, attributes: ["n": 1])
                let second = try await context.store.put(
                    key, attributes: ["n": 2], expiresAt: nil, condition: .versionEquals(1))
                try expect(second.version == 2, "compare-and-swap from version 1 gives 2")
                try await expectError(.conditionFailed) {
                    try await context.store.put(key, attributes: ["n": 3], expiresAt: nil, condition: .versionEquals(1))
                }
                let third = try await context.store.put(key, attributes: ["n": 3], expiresAt: nil, condition: .exists)
                try expect(third.version == 3, "exists holds for a live item")
                try expect(try await context.store.get(key)?.attributes["n"] == 3, "the last good write is stored")
            },
            Case(name: "update never creates and a stale version changes nothing") { context in
                let key = ItemKey(pk: context.partition("updatecas"), sk: "META")
                for condition in [WriteCondition.none, .exists, .versionEquals(1)] {
                    try await expectError(.conditionFailed) {
                        try await context.store.update(key, ItemUpdate(set: ["a": 1]), condition: condition)
                    }
                }
                try expect(try await context.store.get(key) == nil, "update created nothing")
                let stored = try await context.store.put(
                    key, attributes: ["a": 1], expiresAt: context.now + 100, condition: .none)
                try await expectError(.conditionFailed) {
                    try await context.store.update(
                        key, ItemUpdate(set: ["a": 2], remove: ["a2"], expiresAt: .clear), condition: .versionEquals(7))
                }
                try expect(
                    sameItem(try await context.store.get(key), stored), "a stale update leaves the item as it was")
                let updated = try await context.store.update(
                    key, ItemUpdate(set: ["a": 2]), condition: .versionEquals(1))
                try expect(updated.version == 2 && updated.attributes["a"] == 2, "current version wins")
            },
            Case(name: "delete returns the deleted item and honours its condition") { context in
                let key = ItemKey(pk: context.partition("delete"), sk: "META")
                try expect(try await context.store.delete(key) == nil, "deleting nothing returns nil")
                try await expectError(.conditionFailed) { try await context.store.delete(key, condition: .exists) }
                try await expectError(.conditionFailed) {
                    try await context.store.delete(key, condition: .versionEquals(1))
                }
                let stored = try await context.store.put(key, attributes: ["a": 1])
                _ = try await context.store.update(key, ItemUpdate(set: ["b": 2]))
                try await expectError(.conditionFailed) {
                    try await context.store.delete(key, condition: .versionEquals(1))
                }
                try expect(try await context.store.get(key)?.version == 2, "a stale delete leaves the item")
                let deleted = try await context.store.delete(key, condition: .versionEquals(2))
                try expect(deleted?.version == 2 && deleted?.attributes["a"] == 1, "delete returns the old item")
                try expect(deleted?.key == stored.key, "the deleted item's key")
                try expect(try await context.store.get(key) == nil, "the item is gone")
                _ = try await context.store.put(key, attributes: ["again": true])
                let unconditional = try await context.store.delete(key)
                try expect(unconditional?.attributes["again"] == true, "unconditional delete returns the item")
            },
        ]
    }
}
