import RelayJSON
import RelayStore

extension StoreConformance {
    static let racers = 50

    static var concurrencyCases: [Case] {
        [
            Case(name: "50 concurrent updates from one version: exactly one wins") { context in
                let key = ItemKey(pk: context.partition("race"), sk: "META")
                _ = try await context.store.put(key, attributes: ["winner": nil])
                let store = context.store
                let results = await withTaskGroup(of: (Int, Result<Item, StoreError>).self) { group in
                    for racer in 0..<racers {
                        group.addTask {
                            do throws(StoreError) {
                                let item = try await store.update(
                                    key, ItemUpdate(set: ["winner": .int(racer)]), condition: .versionEquals(1))
                                return (racer, .success(item))
                            } catch {
                                return (racer, .failure(error))
                            }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                let winners = results.filter { if case .success = $0.1 { true } else { false } }
                let losers = results.filter { $0.1 == .failure(.conditionFailed) }
                try expect(winners.count == 1, "exactly one winner, got \(winners.count)")
                try expect(losers.count == racers - 1, "every other racer fails its condition, got \(losers.count)")
                let stored = try await store.get(key)
                try expect(stored?.version == 2, "one write happened")
                try expect(stored?.attributes["winner"] == .int(winners[0].0), "the winner's value is stored")
            },
            Case(name: "50 racers retrying compare-and-swap: one winner per version, no lost update") { context in
                let key = ItemKey(pk: context.partition("race-retry"), sk: "META")
                _ = try await context.store.put(key, attributes: ["count": 0])
                let store = context.store
                let wonFrom = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<racers {
                        group.addTask {
                            for _ in 0..<10_000 {
                                guard let current = try await store.get(key),
                                    let count = current.attributes["count"]?.intValue
                                else { throw ConformanceFailure(message: "item vanished", location: #fileID) }
                                do throws(StoreError) {
                                    _ = try await store.update(
                                        key, ItemUpdate(set: ["count": .int(count + 1)]),
                                        condition: .versionEquals(current.version))
                                    return current.version
                                } catch .conditionFailed {
                                    continue
                                } catch {
                                    throw error
                                }
                            }
                            throw ConformanceFailure(message: "a racer never won", location: #fileID)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                try expect(wonFrom.sorted() == Array(1...racers), "each version won exactly once: \(wonFrom.sorted())")
                let stored = try await store.get(key)
                try expect(stored?.version == racers + 1, "version counts every win")
                try expect(stored?.attributes["count"] == .int(racers), "no increment was lost")
            },
            Case(name: "concurrent consume (delete if exists) hands the item to exactly one caller") { context in
                let key = ItemKey(pk: context.partition("consume"), sk: "META")
                _ = try await context.store.put(key, attributes: ["code": "once"])
                let store = context.store
                let taken = await withTaskGroup(of: Item?.self) { group in
                    for _ in 0..<30 {
                        group.addTask { try? await store.delete(key, condition: .exists) }
                    }
                    return await group.reduce(into: []) { $0.append($1) }.compactMap { $0 }
                }
                try expect(
                    taken.count == 1 && taken[0].attributes["code"] == "once", "one consumer, got \(taken.count)")
                try expect(try await store.get(key) == nil, "the item is gone")
            },
            Case(name: "concurrent create (put if absent) has exactly one winner") { context in
                let key = ItemKey(pk: context.partition("create"), sk: "META")
                let store = context.store
                let created = await withTaskGroup(of: Int?.self) { group in
                    for racer in 0..<30 {
                        group.addTask {
                            (try? await store.put(
                                key, attributes: ["by": .int(racer)], expiresAt: nil, condition: .absent)) != nil
                                ? racer : nil
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }.compactMap { $0 }
                }
                try expect(created.count == 1, "one creator, got \(created.count)")
                let stored = try await store.get(key)
                try expect(stored?.version == 1 && stored?.attributes["by"] == .int(created[0]), "the creator's item")
            },
        ]
    }
}
