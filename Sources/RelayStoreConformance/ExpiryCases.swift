import RelayJSON
import RelayStore

extension StoreConformance {
    static var expiryCases: [Case] {
        [
            Case(name: "an item is visible until the second it expires, then invisible to every read") { context in
                let pk = context.partition("expiry")
                let key = ItemKey(pk: pk, sk: "META")
                let other = ItemKey(pk: pk, sk: "OTHER")
                _ = try await context.store.put(
                    key, attributes: ["a": 1], expiresAt: context.now + 60, condition: .absent)
                _ = try await context.store.put(other, attributes: [:])
                context.clock.advance(by: 59.9)
                try expect(try await context.store.get(key) != nil, "visible before expiry")
                try expect(try await context.store.query(Query(pk: pk)).items.count == 2, "queried before expiry")
                context.clock.advance(by: 0.1)
                try expect(try await context.store.get(key) == nil, "invisible at expiresAt")
                let page = try await context.store.query(Query(pk: pk))
                try expect(page.items.map(\.sk) == ["OTHER"], "query skips expired items")
            },
            Case(name: "conditions treat an expired item as absent") { context in
                let key = ItemKey(pk: context.partition("expired-conditions"), sk: "META")
                _ = try await context.store.put(
                    key, attributes: ["old": true], expiresAt: context.now + 10, condition: .none)
                _ = try await context.store.update(key, ItemUpdate(set: ["v": 2]))
                context.clock.advance(by: 10)
                try await expectError(.conditionFailed) {
                    try await context.store.update(key, ItemUpdate(set: ["x": 1]))
                }
                try await expectError(.conditionFailed) {
                    try await context.store.update(key, ItemUpdate(), condition: .versionEquals(2))
                }
                try await expectError(.conditionFailed) { try await context.store.delete(key, condition: .exists) }
                try expect(try await context.store.delete(key) == nil, "deleting an expired item returns nil")
                _ = try await context.store.put(
                    key, attributes: ["old": true], expiresAt: context.now - 1, condition: .none)
                let fresh = try await context.store.put(
                    key, attributes: ["new": true], expiresAt: nil, condition: .absent)
                try expect(fresh.version == 1, "a write over an expired item starts at version 1")
                try expect(
                    try await context.store.get(key)?.attributes == ["new": true], "the new item, no old attributes")
            },
            Case(name: "an update can extend or clear the expiry of a live item") { context in
                let pk = context.partition("extend")
                let extended = ItemKey(pk: pk, sk: "EXTENDED")
                let cleared = ItemKey(pk: pk, sk: "CLEARED")
                _ = try await context.store.put(
                    extended, attributes: [:], expiresAt: context.now + 10, condition: .none)
                _ = try await context.store.put(cleared, attributes: [:], expiresAt: context.now + 10, condition: .none)
                _ = try await context.store.update(extended, ItemUpdate(expiresAt: .set(context.now + 100)))
                _ = try await context.store.update(cleared, ItemUpdate(expiresAt: .clear))
                context.clock.advance(by: 50)
                try expect(try await context.store.get(extended) != nil, "extended item still visible")
                context.clock.advance(by: 50)
                try expect(try await context.store.get(extended) == nil, "extended item expires at its new time")
                context.clock.advance(by: 1_000_000)
                try expect(try await context.store.get(cleared) != nil, "an item without expiry never expires")
            },
        ]
    }
}
