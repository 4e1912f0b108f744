import RelayJSON
import RelayStore

extension StoreConformance {
    /// `update` with only attributes to set: how a grant's rotated CloudKit token and its
    /// `endingSince` stamp are saved.
    static var updateSetCases: [Case] {
        [
            Case(name: "an update setting attributes replaces and adds attributes, keeps the rest and the expiry") {
                context in
                let key = ItemKey(pk: context.partition("set"), sk: "META")
                _ = try await context.store.put(
                    key, attributes: sampleAttributes, expiresAt: context.now + 600, condition: .absent)
                let version = try await context.store.updateSetting(
                    key, ["string": sampleAttributes["object"]!, "added": "new \"value\" é\n🎉", "int": nil],
                    condition: .none)
                try expect(version == 2, "the new version is 2, got \(version)")
                var expected = sampleAttributes
                expected["string"] = sampleAttributes["object"]
                expected["added"] = "new \"value\" é\n🎉"
                expected["int"] = JSONValue.null
                let read = try await context.store.get(key)
                try expect(read?.version == 2 && read?.expiresAt == context.now + 600, "version 2, expiry kept")
                try expect(
                    sameJSON(.object(read?.attributes ?? [:]), .object(expected)),
                    "every other attribute and JSON type as it was: \(String(describing: read?.attributes))")
                let again = try await context.store.updateSetting(key, ["added": 1.5], condition: .versionEquals(2))
                try expect(again == 3, "compare-and-swap from version 2 gives 3")
                try expect(try await context.store.get(key)?.attributes["added"] == 1.5, "the second value is stored")
            },
            Case(name: "an update setting attributes never creates and honours its condition") { context in
                let key = ItemKey(pk: context.partition("setcas"), sk: "META")
                for condition in [WriteCondition.none, .exists, .versionEquals(1)] {
                    try await expectError(.conditionFailed) {
                        try await context.store.updateSetting(key, ["a": 1], condition: condition)
                    }
                }
                try expect(try await context.store.get(key) == nil, "the update created nothing")
                try await expectInvalid { try await context.store.updateSetting(key, ["a": 1], condition: .absent) }
                let stored = try await context.store.put(
                    key, attributes: ["a": 1], expiresAt: context.now + 10, condition: .none)
                try await expectError(.conditionFailed) {
                    try await context.store.updateSetting(key, ["a": 2], condition: .versionEquals(7))
                }
                try expect(sameItem(try await context.store.get(key), stored), "a stale version changes nothing")
                try expect(
                    try await context.store.updateSetting(key, ["a": 2], condition: .exists) == 2, "exists holds")
                context.clock.advance(by: 10)
                try await expectError(.conditionFailed) {
                    try await context.store.updateSetting(key, ["a": 3], condition: .none)
                }
                try await expectError(.conditionFailed) {
                    try await context.store.updateSetting(key, ["a": 3], condition: .versionEquals(2))
                }
            },
            Case(name: "an update setting attributes takes any attribute name as one top-level name") { context in
                let key = ItemKey(pk: context.partition("setnames"), sk: "META")
                _ = try await context.store.put(key, attributes: ["a": ["b": 1], "plain": 0])
                // Names a JSON path would read as a path, a quoted label, an index or a wildcard.
                let names = ["a.b", "$.plain", "q\"uote", "x[0]", "*", "é", "with space", "back\\slash"]
                var set = JSONObject()
                for (index, name) in names.enumerated() { set[name] = .int(index) }
                set["plain"] = "plain too"
                try expect(try await context.store.updateSetting(key, set, condition: .none) == 2, "version 2")
                var expected: JSONObject = ["a": ["b": 1], "plain": "plain too"]
                for (index, name) in names.enumerated() { expected[name] = .int(index) }
                let read = try await context.store.get(key)
                try expect(
                    sameJSON(.object(read?.attributes ?? [:]), .object(expected)),
                    "each name set as itself, nothing nested changed: \(String(describing: read?.attributes))")
            },
            Case(name: "50 concurrent updates setting attributes from one version: exactly one wins") { context in
                let key = ItemKey(pk: context.partition("setrace"), sk: "META")
                _ = try await context.store.put(key, attributes: ["winner": nil, "other": "kept"])
                let store = context.store
                let results = await withTaskGroup(of: (Int, Result<Int, StoreError>).self) { group in
                    for racer in 0..<racers {
                        group.addTask {
                            do throws(StoreError) {
                                let version = try await store.updateSetting(
                                    key, ["winner": .int(racer)], condition: .versionEquals(1))
                                return (racer, .success(version))
                            } catch {
                                return (racer, .failure(error))
                            }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                let winners = results.filter { $0.1 == .success(2) }
                let losers = results.filter { $0.1 == .failure(.conditionFailed) }
                try expect(winners.count == 1, "exactly one winner at version 2, got \(winners.count)")
                try expect(losers.count == racers - 1, "every other racer fails its condition, got \(losers.count)")
                let stored = try await store.get(key)
                try expect(stored?.version == 2, "one write happened")
                try expect(
                    stored?.attributes == ["winner": .int(winners[0].0), "other": "kept"],
                    "the winner's value is stored")
            },
            Case(name: "an update setting attributes can shrink an item close to the size limit") { context in
                let key = ItemKey(pk: context.partition("setbig"), sk: "META")
                let big = JSONValue.string(String(repeating: "x", count: StoreLimits.maximumAttributeBytes - 100))
                _ = try await context.store.put(key, attributes: ["big": big, "small": 1])
                try expect(try await context.store.updateSetting(key, ["big": "short"], condition: .none) == 2, "v2")
                try expect(
                    try await context.store.get(key)?.attributes == ["big": "short", "small": 1], "the short value")
            },
        ]
    }
}

extension Store {
    /// `update` with only attributes to set, answering the new version.
    fileprivate func updateSetting(_ key: ItemKey, _ attributes: JSONObject, condition: WriteCondition)
        async throws(StoreError) -> Int
    {
        try await update(key, ItemUpdate(set: attributes), condition: condition).version
    }
}
