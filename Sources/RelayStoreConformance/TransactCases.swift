import RelayJSON
import RelayStore

extension StoreConformance {
    /// `transact`: every write or none, each by the rules of its single form.
    static var transactCases: [Case] {
        [
            Case(name: "a transaction makes every write, and each item's version advances as alone") { context in
                let pk = context.partition("tx")
                let (created, updated, replaced, overwritten, removed) = (
                    ItemKey(pk: pk, sk: "NEW"), ItemKey(pk: pk, sk: "UPD"), ItemKey(pk: pk, sk: "REP"),
                    ItemKey(pk: pk, sk: "OVR"), ItemKey(pk: pk, sk: "DEL")
                )
                _ = try await context.store.put(updated, attributes: ["keep": 1, "n": 1, "drop": true])
                _ = try await context.store.update(updated, ItemUpdate(set: ["n": 2]))
                _ = try await context.store.put(replaced, attributes: ["old": 1])
                _ = try await context.store.put(overwritten, attributes: ["old": 1], expiresAt: context.now + 60)
                _ = try await context.store.put(removed, attributes: ["gone": 1])
                try await context.store.transact([
                    .put(created, attributes: sampleAttributes, expiresAt: context.now + 600, condition: .absent),
                    .update(
                        updated, ItemUpdate(set: ["n": 3], remove: ["drop"], increment: ["count": 2]),
                        condition: .versionEquals(2)),
                    .put(replaced, attributes: ["new": 1], condition: .versionEquals(1)),
                    .put(overwritten, attributes: ["new": 2]),
                    .delete(removed, condition: .exists),
                ])
                let new = try await context.store.get(created)
                try expect(new?.version == 1 && new?.expiresAt == context.now + 600, "created at version 1")
                try expect(sameJSON(.object(new?.attributes ?? [:]), .object(sampleAttributes)), "every JSON type")
                let update = try await context.store.get(updated)
                try expect(update?.version == 3, "the update counts on from 2, got \(String(describing: update))")
                try expect(
                    sameJSON(.object(update?.attributes ?? [:]), ["keep": 1, "n": 3, "count": 2]), "merged as update")
                let replace = try await context.store.get(replaced)
                try expect(replace?.version == 2 && replace?.attributes == ["new": 1], "replaced at version 2")
                let overwrite = try await context.store.get(overwritten)
                try expect(
                    overwrite?.version == 2 && overwrite?.attributes == ["new": 2] && overwrite?.expiresAt == nil,
                    "an unconditional put replaces the item and its expiry: \(String(describing: overwrite))")
                try expect(try await context.store.get(removed) == nil, "deleted")
            },
            Case(name: "a transaction with one failed condition writes nothing, wherever that write is") { context in
                let pk = context.partition("tx-none")
                let existing = ItemKey(pk: pk, sk: "EXISTING")
                let doomed = ItemKey(pk: pk, sk: "DOOMED")
                let before = try await context.store.put(existing, attributes: ["a": 1])
                let kept = try await context.store.put(doomed, attributes: ["d": 1])
                let failing: [StoreWrite] = [
                    .put(existing, attributes: ["a": 2], condition: .absent),
                    .update(existing, ItemUpdate(set: ["a": 2]), condition: .versionEquals(7)),
                    .delete(ItemKey(pk: pk, sk: "MISSING"), condition: .exists),
                    .update(ItemKey(pk: pk, sk: "MISSING"), ItemUpdate(set: ["a": 2])),
                ]
                for (index, failure) in failing.enumerated() {
                    for position in 0..<3 {
                        var writes: [StoreWrite] = [
                            .put(
                                ItemKey(pk: pk, sk: "NEW\(index)-\(position)"), attributes: ["n": 1], condition: .absent
                            ),
                            .delete(doomed, condition: .versionEquals(1)),
                        ]
                        if failure.key != existing {
                            writes.append(.update(existing, ItemUpdate(set: ["a": 3]), condition: .versionEquals(1)))
                        }
                        writes.insert(failure, at: position)
                        try await expectError(.conditionFailed) { try await context.store.transact(writes) }
                        try expect(
                            try await context.store.get(ItemKey(pk: pk, sk: "NEW\(index)-\(position)")) == nil,
                            "failure \(index) at \(position): nothing created")
                    }
                }
                try expect(sameItem(try await context.store.get(existing), before), "the existing item as it was")
                try expect(sameItem(try await context.store.get(doomed), kept), "nothing deleted")
                let page = try await context.store.query(Query(pk: pk))
                try expect(page.items.count == 2, "no item was created: \(page.items.map(\.sk))")
            },
            Case(name: "a transaction treats expired items as absent") { context in
                let pk = context.partition("tx-expiry")
                let (a, b, c) = (ItemKey(pk: pk, sk: "A"), ItemKey(pk: pk, sk: "B"), ItemKey(pk: pk, sk: "C"))
                for key in [a, b, c] {
                    _ = try await context.store.put(key, attributes: ["old": 1], expiresAt: context.now + 10)
                    _ = try await context.store.update(key, ItemUpdate(set: ["old": 2]))
                }
                context.clock.advance(by: 10)
                for write in [
                    StoreWrite.update(a, ItemUpdate(set: ["x": 1])), .update(a, ItemUpdate(), condition: .exists),
                    .put(a, attributes: ["x": 1], condition: .versionEquals(2)), .delete(a, condition: .exists),
                    .put(a, attributes: ["x": 1], condition: .exists),
                ] {
                    try await expectError(.conditionFailed) {
                        try await context.store.transact([.put(c, attributes: ["new": 1]), write])
                    }
                }
                try expect(try await context.store.get(c) == nil, "nothing written over the expired item")
                try await context.store.transact([
                    .put(a, attributes: ["new": 1], condition: .absent), .put(b, attributes: ["new": 2]),
                    .delete(c),
                ])
                let (newA, newB) = (try await context.store.get(a), try await context.store.get(b))
                try expect(newA?.version == 1 && newA?.attributes == ["new": 1], "created again at version 1")
                try expect(
                    newB?.version == 1 && newB?.attributes == ["new": 2] && newB?.expiresAt == nil,
                    "an unconditional put over an expired item starts again at 1: \(String(describing: newB))")
                try expect(try await context.store.get(c) == nil, "still absent")
            },
            Case(name: "concurrent transactions on one item: exactly one wins, the losers write nothing") { context in
                let pk = context.partition("tx-race")
                let shared = ItemKey(pk: pk, sk: "GRANT")
                _ = try await context.store.put(shared, attributes: ["winner": nil])
                let store = context.store
                let racers = 20
                let results = await withTaskGroup(of: (Int, Result<Void, StoreError>).self) { group in
                    for racer in 0..<racers {
                        group.addTask {
                            do throws(StoreError) {
                                try await store.transact([
                                    .put(
                                        ItemKey(pk: pk, sk: "TOKEN#\(racer)"), attributes: ["by": .int(racer)],
                                        condition: .absent),
                                    .update(
                                        shared, ItemUpdate(set: ["winner": .int(racer)]), condition: .versionEquals(1)),
                                ])
                                return (racer, .success(()))
                            } catch {
                                return (racer, .failure(error))
                            }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                let winners = results.filter { if case .success = $0.1 { true } else { false } }.map(\.0)
                let losers = results.filter { if case .failure(.conditionFailed) = $0.1 { true } else { false } }
                try expect(winners.count == 1, "exactly one winner, got \(winners.count)")
                try expect(losers.count == racers - 1, "every other racer fails its condition, got \(losers.count)")
                let stored = try await store.get(shared)
                try expect(stored?.version == 2 && stored?.attributes["winner"] == .int(winners[0]), "the winner's")
                let tokens = try await store.query(Query(pk: pk, skPrefix: "TOKEN#"))
                try expect(tokens.items.map(\.sk) == ["TOKEN#\(winners[0])"], "only the winner's token item")
            },
            Case(name: "a transaction that is empty, too large or writes one key twice is invalid and writes nothing") {
                context in
                let pk = context.partition("tx-invalid")
                let key = ItemKey(pk: pk, sk: "A")
                let fine = StoreWrite.put(ItemKey(pk: pk, sk: "FINE"), attributes: ["a": 1])
                try await expectInvalid { try await context.store.transact([]) }
                try await expectInvalid {
                    try await context.store.transact(
                        (0...StoreLimits.maximumTransactionWrites).map {
                            .put(ItemKey(pk: pk, sk: "N\($0)"), attributes: [:])
                        })
                }
                try await expectInvalid {
                    try await context.store.transact([
                        fine, .put(key, attributes: ["a": 1]), .update(key, ItemUpdate(set: ["b": 2])),
                    ])
                }
                let large = JSONValue.string(String(repeating: "x", count: StoreLimits.maximumAttributeBytes - 100))
                let count = StoreLimits.maximumTransactionBytes / StoreLimits.maximumAttributeBytes + 1
                try await expectInvalid {
                    try await context.store.transact(
                        [fine] + (0..<count).map { .put(ItemKey(pk: pk, sk: "BIG\($0)"), attributes: ["big": large]) })
                }
                try await expectInvalid {
                    try await context.store.transact([fine, .update(key, ItemUpdate(), condition: .absent)])
                }
                try await expectInvalid {
                    try await context.store.transact([fine, .put(ItemKey(pk: pk, sk: ""), attributes: [:])])
                }
                let page = try await context.store.query(Query(pk: pk))
                try expect(page.items.isEmpty, "nothing was written: \(page.items.map(\.sk))")
            },
        ]
    }
}
