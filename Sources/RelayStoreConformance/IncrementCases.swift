import RelayJSON
import RelayStore

extension StoreConformance {
    /// `ItemUpdate.increment`: integer members added to in the update's one atomic write (the
    /// connections page's activity counts, issue 44).
    static var incrementCases: [Case] {
        [
            Case(name: "increment adds to integers, counts a missing one from 0, with set in the same write") {
                context in
                let key = ItemKey(pk: context.partition("inc"), sk: "D1")
                _ = try await context.store.put(
                    key, attributes: ["added": 2, "label": "x"], expiresAt: context.now + 600, condition: .absent)
                let first = try await context.store.update(
                    key, ItemUpdate(set: ["label": "y"], increment: ["added": 3, "completed": 1]), condition: .exists)
                try expect(first.version == 2, "one write: version 2, got \(first.version)")
                try expect(
                    sameJSON(.object(first.attributes), ["added": 5, "completed": 1, "label": "y"]),
                    "added 2+3, completed 0+1, label set: \(first.attributes)")
                try expect(first.expiresAt == context.now + 600, "the expiry is kept")
                let second = try await context.store.update(
                    key, ItemUpdate(increment: ["completed": -1]), condition: .versionEquals(2))
                try expect(second.attributes["completed"] == 0, "a negative increment subtracts")
                let read = try await context.store.get(key)
                try expect(sameItem(read, second), "the stored item is the answer")
            },
            Case(name: "increment never creates, refuses a non-integer and a name given twice") { context in
                let key = ItemKey(pk: context.partition("incno"), sk: "D1")
                try await expectError(.conditionFailed) {
                    try await context.store.update(key, ItemUpdate(increment: ["n": 1]), condition: .none)
                }
                try expect(try await context.store.get(key) == nil, "increment created nothing")
                let stored = try await context.store.put(key, attributes: ["text": "abc", "n": 1])
                try await expectInvalid {
                    try await context.store.update(key, ItemUpdate(increment: ["text": 1]), condition: .exists)
                }
                try await expectInvalid {
                    try await context.store.update(key, ItemUpdate(set: ["n": 5], increment: ["n": 1]))
                }
                try await expectInvalid {
                    try await context.store.update(key, ItemUpdate(remove: ["n"], increment: ["n": 1]))
                }
                try expect(sameItem(try await context.store.get(key), stored), "a refused increment changes nothing")
            },
            Case(name: "concurrent increments all land") { context in
                let key = ItemKey(pk: context.partition("incrace"), sk: "D1")
                _ = try await context.store.put(key, attributes: [:], condition: .absent)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<16 {
                        group.addTask {
                            _ = try await context.store.update(key, ItemUpdate(increment: ["n": 2]), condition: .exists)
                        }
                    }
                    try await group.waitForAll()
                }
                let read = try await context.store.get(key)
                try expect(
                    read?.attributes["n"] == 32 && read?.version == 17,
                    "16 increments of 2: \(String(describing: read))")
            },
        ]
    }
}
