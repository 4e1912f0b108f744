import RelayJSON
import RelaySync

/// A `Store` in process memory: for tests, and for a throwaway demo where losing everything on
/// exit is fine. One lock guards all items; every operation is a short in-memory step.
package final class MemoryStore: Store {
    /// Partition (by exact UTF-8 bytes) → sort key → item, expired items included until purged.
    private let partitions = Locked<[ExactString: [ExactString: Item]]>([:])
    private let clock: any WallClock
    private let purging = Locked<Task<Void, Never>?>(nil)

    /// An empty store reading time from `clock`; expired items are purged every `purgeInterval`
    /// (nil: only when `purgeExpired()` is called).
    package init(clock: any WallClock = SystemClock(), purgeInterval: Duration? = .seconds(60)) {
        self.clock = clock
        if let purgeInterval {
            let task = PurgeSchedule.start(every: purgeInterval) { [weak self] in
                guard let self else { return false }
                _ = self.purgeExpired()
                return true
            }
            purging.withLock { $0 = task }
        }
    }

    deinit {
        purging.withLock { $0?.cancel() }
    }

    package func get(_ key: ItemKey) async throws(StoreError) -> Item? {
        try StoreLimits.check(key)
        let now = clock.epochSeconds()
        return partitions.withLock { $0[ExactString(key.pk)]?[ExactString(key.sk)] }.flatMap {
            $0.isLive(at: now) ? $0 : nil
        }
    }

    package func put(
        _ key: ItemKey, attributes: JSONObject, expiresAt: Int?, condition: WriteCondition
    ) async throws(StoreError) -> Item {
        let outcome = try apply(
            StoreWrite(key: key, change: .put(attributes: attributes, expiresAt: expiresAt), condition: condition))
        guard case .store(let item, _) = outcome else { throw .invalid("put produced no item") }
        return item
    }

    package func update(_ key: ItemKey, _ update: ItemUpdate, condition: WriteCondition) async throws(StoreError)
        -> Item
    {
        let outcome = try apply(StoreWrite(key: key, change: .update(update), condition: condition))
        guard case .store(let item, _) = outcome else { throw .invalid("update produced no item") }
        return item
    }

    package func delete(_ key: ItemKey, condition: WriteCondition) async throws(StoreError) -> Item? {
        let outcome = try apply(StoreWrite(key: key, change: .delete, condition: condition))
        guard case .remove(let previous) = outcome else { throw .invalid("delete produced an item") }
        return previous
    }

    /// Every outcome is worked out under the lock before any is stored, so a failed condition
    /// leaves everything as it was.
    package func transact(_ writes: [StoreWrite]) async throws(StoreError) {
        try StoreWrite.validate(transaction: writes)
        let now = clock.epochSeconds()
        try partitions.withLock { (partitions) throws(StoreError) in
            var outcomes: [StoreWrite.Outcome] = []
            for write in writes {
                let current = partitions[ExactString(write.key.pk)]?[ExactString(write.key.sk)]
                outcomes.append(try write.apply(to: current.flatMap { $0.isLive(at: now) ? $0 : nil }))
            }
            for (write, outcome) in zip(writes, outcomes) { Self.store(outcome, of: write.key, in: &partitions) }
        }
    }

    package func query(_ query: Query) async throws(StoreError) -> QueryPage {
        try StoreLimits.check(query)
        let now = clock.epochSeconds()
        let candidates = partitions.withLock { $0[ExactString(query.pk)].map { Array($0.values) } ?? [] }
        var items = candidates.filter {
            $0.isLive(at: now) && SortKeyOrder.hasPrefix($0.sk, query.skPrefix)
                && SortKeyOrder.isAfter($0.sk, cursor: query.cursor, order: query.order)
        }
        items.sort {
            query.order == .ascending ? SortKeyOrder.precedes($0.sk, $1.sk) : SortKeyOrder.precedes($1.sk, $0.sk)
        }
        guard items.count > query.limit else { return QueryPage(items: items, next: nil) }
        let page = Array(items.prefix(query.limit))
        return QueryPage(items: page, next: QueryCursor(lastSortKey: page[page.count - 1].sk))
    }

    package func scan(pkPrefix: String, cursor: ScanCursor?, limit: Int) async throws(StoreError) -> ScanPage {
        try StoreLimits.checkScan(pkPrefix: pkPrefix, cursor: cursor, limit: limit)
        let now = clock.epochSeconds()
        var items = partitions.withLock { partitions in
            partitions.filter { $0.key.value.utf8.starts(with: pkPrefix.utf8) }.values.flatMap(\.values)
        }
        items = items.filter { item in
            item.isLive(at: now) && cursor.map { SortKeyOrder.keyPrecedes($0.lastKey, item.key) } ?? true
        }
        items.sort { SortKeyOrder.keyPrecedes($0.key, $1.key) }
        guard items.count > limit else { return ScanPage(items: items, next: nil) }
        let page = Array(items.prefix(limit))
        return ScanPage(items: page, next: ScanCursor(lastKey: page[page.count - 1].key))
    }

    /// Removes every expired item now; returns how many.
    @discardableResult
    package func purgeExpired() -> Int {
        let now = clock.epochSeconds()
        return partitions.withLock { partitions in
            var removed = 0
            for (pk, items) in partitions {
                let live = items.filter { $0.value.isLive(at: now) }
                guard live.count != items.count else { continue }
                removed += items.count - live.count
                partitions[pk] = live.isEmpty ? nil : live
            }
            return removed
        }
    }

    /// Items held, expired ones included (what a purge has not removed yet).
    package var storedItemCount: Int {
        partitions.withLock { $0.values.reduce(0) { $0 + $1.count } }
    }

    private func apply(_ write: StoreWrite) throws(StoreError) -> StoreWrite.Outcome {
        try write.validate()
        let now = clock.epochSeconds()
        let pk = ExactString(write.key.pk)
        let sk = ExactString(write.key.sk)
        return try partitions.withLock { (partitions) throws(StoreError) -> StoreWrite.Outcome in
            let current = partitions[pk]?[sk].flatMap { $0.isLive(at: now) ? $0 : nil }
            let outcome = try write.apply(to: current)
            Self.store(outcome, of: write.key, in: &partitions)
            return outcome
        }
    }

    private static func store(
        _ outcome: StoreWrite.Outcome, of key: ItemKey, in partitions: inout [ExactString: [ExactString: Item]]
    ) {
        let pk = ExactString(key.pk)
        switch outcome {
        case .store(let item, _):
            partitions[pk, default: [:]][ExactString(key.sk)] = item
        case .remove:
            partitions[pk]?[ExactString(key.sk)] = nil
            if partitions[pk]?.isEmpty == true { partitions[pk] = nil }
        }
    }
}

/// A string compared and hashed by its UTF-8 bytes, like the keys of SQLite and DynamoDB.
struct ExactString: Hashable, Sendable {
    let value: String

    init(_ value: String) { self.value = value }

    static func == (lhs: ExactString, rhs: ExactString) -> Bool { lhs.value.utf8.elementsEqual(rhs.value.utf8) }

    func hash(into hasher: inout Hasher) {
        for byte in value.utf8 { hasher.combine(byte) }
    }
}

/// A background loop that runs `action` every `interval` until the action returns false (its owner
/// is gone) or the task is cancelled. It sleeps with `Task.sleep`, so it holds no thread.
enum PurgeSchedule {
    static func start(every interval: Duration, _ action: @escaping @Sendable () async -> Bool) -> Task<Void, Never> {
        Task.detached(priority: .background) {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                guard await action() else { return }
            }
        }
    }
}
